"""The contract's models are wire models only (issue 35, item 3): what a model holds is
what crosses a surface. What a read knows beyond that (the whole text behind a bounded
receipt, the cause of its reason) travels beside the result in research's own type
(`research/retrieval/finished.py`), never as private state of a contract model."""

from __future__ import annotations

import importlib
import pkgutil

import sosoapi.contract as contract
from sosoapi.contract.documents import DocumentResult
from sosoapi.contract.models import RetrieveResult, Wire


def _wire_models() -> list[type[Wire]]:
    """Every model of the contract's modules: the subclasses of `Wire`, at any depth."""
    for info in pkgutil.iter_modules(contract.__path__):
        importlib.import_module(f"{contract.__name__}.{info.name}")
    found: list[type[Wire]] = []
    stack = [Wire]
    while stack:
        for sub in stack.pop().__subclasses__():
            if sub not in found:
                found.append(sub)
                stack.append(sub)
    return found


def test_no_contract_model_carries_private_state() -> None:
    models = _wire_models()
    assert RetrieveResult in models and DocumentResult in models
    carrying = {m.__name__: sorted(m.__private_attributes__) for m in models}
    assert {name: attrs for name, attrs in carrying.items() if attrs} == {}
    assert RetrieveResult.__private_attributes__ == DocumentResult.__private_attributes__ == {}
