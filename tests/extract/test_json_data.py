"""JSON a page embeds is data at any depth (extract/json_data.py, issue 35 item 5)."""

from __future__ import annotations

from sosoapi.extract.json_data import MAX_DEPTH, load_json


def test_json_nested_past_the_interpreter_limit_is_read_with_its_deep_part_null() -> None:
    deep = "[" * 5_000 + '"x"' + "]" * 5_000
    value = load_json('{"name": "kept", "deep": ' + deep + ', "after": "kept too"}')
    assert value["name"] == "kept" and value["after"] == "kept too"
    level, depth = value["deep"], 1
    while isinstance(level, list):
        level, depth = level[0], depth + 1
    assert level is None and depth == MAX_DEPTH


def test_brackets_inside_strings_are_not_nesting() -> None:
    text = '{"a": "[[[{{{", "b": ' + "[" * 3_000 + '"\\"]"' + "]" * 3_000 + "}"
    assert load_json(text)["a"] == "[[[{{{"


def test_what_is_not_json_is_none_at_any_depth() -> None:
    assert load_json("[" * 5_000) is None
    assert load_json("{not json}") is None
    assert load_json('{"a": [1, 2]}') == {"a": [1, 2]}
