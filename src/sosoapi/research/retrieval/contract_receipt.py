"""The contract receipt of a stored retrieval, in whatever state it is."""

from __future__ import annotations

from dataclasses import dataclass

from sosoapi.contract.documents import (
    DOCUMENT_KIND,
    AnyResult,
    DocumentResult,
    DocumentRetrieval,
    DocumentRetrieveOutput,
    ReceiptOutput,
    result_model,
)
from sosoapi.contract.models import EvidenceRef, Retrieval, RetrieveOutput
from sosoapi.store.records import RetrievalRecord


@dataclass(frozen=True, slots=True)
class Receipt:
    """A receipt as the contract shows it, and which cause of its result's reason it was:
    the published schema has no field for it (the record keeps it in a column of its own),
    and a surface words its advice from it."""

    output: ReceiptOutput
    cause: str | None = None


def receipt_of(record: RetrievalRecord, parsed: AnyResult | None = None) -> Receipt:
    """The receipt of `record` (a document's for kind `pdf_text`); `parsed` is
    `record.result` already as a model (this instance just settled it), so it is not parsed
    again. It names the cause the record kept, so a replay gives the same advice as the
    first answer."""
    result = parsed or (
        result_model(record.kind).model_validate_json(record.result) if record.result else None
    )
    evidence = (
        EvidenceRef(evidence_id=record.evidence_id, revision=record.evidence_revision)
        if record.evidence_id and record.evidence_revision
        else None
    )
    fields = {
        "id": record.id,
        "workspace_id": record.workspace_id,
        "mutation_id": record.mutation_id,
        "state": record.state,
        "kind": record.kind,
        "created_at": record.created_at,
        "settled_at": record.settled_at,
        "valid_until": record.valid_until,
        "result": result,
        "evidence": evidence,
    }
    if record.kind == DOCUMENT_KIND or isinstance(result, DocumentResult):
        return Receipt(DocumentRetrieveOutput(retrieval=DocumentRetrieval(**fields)), record.cause)
    return Receipt(RetrieveOutput(retrieval=Retrieval(**fields)), record.cause)
