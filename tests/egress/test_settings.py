"""SOSOAPI_EGRESS_* parsing: good values read right, bad values named with the fix."""

from __future__ import annotations

import ipaddress

import pytest

from sosoapi.config import egress_from_env
from sosoapi.egress.settings import DEFAULT_PLATFORM_HOSTS, EgressSettings


def test_defaults() -> None:
    settings = egress_from_env({})
    assert settings == EgressSettings()
    assert settings.ports == frozenset({443})
    assert settings.max_body_bytes == 5 * 1024 * 1024
    assert settings.total_timeout == 20.0
    assert settings.max_redirects == 5
    assert "youtube.com" in settings.unsupported_sources
    assert settings.user_agent.startswith("SosoAPI-Research/0.1 (+https://")


def test_full_environment(tmp_path) -> None:
    bundle = tmp_path / "ca.pem"
    bundle.write_text("x")
    settings = egress_from_env(
        {
            "SOSOAPI_EGRESS_ALLOW": "127.0.0.1:8443, 10.0.0.0/8,[::1]:443,[fd00::/8]",
            "SOSOAPI_EGRESS_RESOLVE": "Origin.Test:127.0.0.1,v6.test:[::1]",
            "SOSOAPI_EGRESS_CA_BUNDLE": str(bundle),
            "SOSOAPI_EGRESS_PORTS": "443,8443",
            "SOSOAPI_UNSUPPORTED_SOURCES": "video.example,.Clips.Example",
            "SOSOAPI_EGRESS_PROXY": "http://127.0.0.1:3128",
            "SOSOAPI_EGRESS_CONTACT_URL": "https://ops.example/contact",
            "SOSOAPI_EGRESS_MAX_BODY_BYTES": "1000",
            "SOSOAPI_EGRESS_TOTAL_TIMEOUT": "2.5",
            "SOSOAPI_EGRESS_PER_ORIGIN_MIN_INTERVAL": "0",
            "SOSOAPI_EGRESS_PER_ORIGIN_CONCURRENCY": "4",
            "SOSOAPI_EGRESS_MAX_CONCURRENCY": "8",
            "SOSOAPI_EGRESS_MAX_REDIRECTS": "3",
            "SOSOAPI_EGRESS_CONNECT_TIMEOUT": "1.5",
            "SOSOAPI_EGRESS_READ_TIMEOUT": "4",
        }
    )
    assert [(str(r.network), r.port) for r in settings.allow] == [
        ("127.0.0.1/32", 8443),
        ("10.0.0.0/8", None),
        ("::1/128", 443),
        ("fd00::/8", None),
    ]
    assert settings.resolve == {
        "origin.test": ipaddress.ip_address("127.0.0.1"),
        "v6.test": ipaddress.ip_address("::1"),
    }
    assert settings.ca_bundle == str(bundle)
    assert settings.ports == frozenset({443, 8443})
    assert settings.unsupported_sources == ("video.example", "clips.example")
    assert settings.proxy == "http://127.0.0.1:3128"
    assert settings.user_agent == "SosoAPI-Research/0.1 (+https://ops.example/contact)"
    assert settings.max_body_bytes == 1000
    assert settings.total_timeout == 2.5
    assert settings.per_origin_min_interval == 0.0
    assert settings.per_origin_concurrency == 4
    assert settings.max_concurrent_fetches == 8
    assert settings.max_redirects == 3
    assert (settings.connect_timeout, settings.read_timeout) == (1.5, 4.0)


def test_empty_unsupported_sources_keeps_the_default_list() -> None:
    settings = egress_from_env({"SOSOAPI_UNSUPPORTED_SOURCES": ""})
    assert settings.unsupported_sources == DEFAULT_PLATFORM_HOSTS


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("SOSOAPI_EGRESS_ALLOW", "example.com"),
        ("SOSOAPI_EGRESS_ALLOW", "10.0.0.1/8"),
        ("SOSOAPI_EGRESS_ALLOW", "::1"),
        ("SOSOAPI_EGRESS_ALLOW", "[::1"),
        ("SOSOAPI_EGRESS_ALLOW", "127.0.0.1:http"),
        ("SOSOAPI_EGRESS_ALLOW", "127.0.0.1:70000"),
        ("SOSOAPI_EGRESS_RESOLVE", "origin.test"),
        ("SOSOAPI_EGRESS_RESOLVE", "origin.test:localhost"),
        ("SOSOAPI_EGRESS_RESOLVE", "origin.test:[::1"),
        ("SOSOAPI_EGRESS_CA_BUNDLE", "/nonexistent/ca.pem"),
        ("SOSOAPI_EGRESS_PORTS", "443,https"),
        ("SOSOAPI_EGRESS_PROXY", "127.0.0.1:3128"),
        ("SOSOAPI_EGRESS_PROXY", "socks5://127.0.0.1:1080"),
        ("SOSOAPI_EGRESS_CONTACT_URL", "ops team"),
        ("SOSOAPI_EGRESS_MAX_BODY_BYTES", "0"),
        ("SOSOAPI_EGRESS_TOTAL_TIMEOUT", "nan"),
        ("SOSOAPI_EGRESS_PER_ORIGIN_CONCURRENCY", "two"),
    ],
)
def test_bad_values_name_variable_value_and_fix(variable: str, value: str) -> None:
    with pytest.raises(ValueError) as info:
        egress_from_env({variable: value})
    message = str(info.value)
    assert variable in message
    assert value.split(",")[-1].split(":")[0] in message
    assert any(word in message for word in ("use", "give", "point", "put", "write", "list"))
