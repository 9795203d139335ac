"""The contract receipt of a stored retrieval, in whatever state it is."""

from __future__ import annotations

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


def receipt_of(record: RetrievalRecord, parsed: AnyResult | None = None) -> ReceiptOutput:
    """The receipt of `record` (a document's for kind `pdf_text`); `parsed` is
    `record.result` already as a model (this instance just settled it), so it is not parsed
    again. The result names the cause the receipt kept, so a replay gives the same advice
    as the first answer."""
    result = parsed or (
        result_model(record.kind).model_validate_json(record.result).with_cause(record.cause)
        if record.result
        else None
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
        return DocumentRetrieveOutput(retrieval=DocumentRetrieval(**fields))
    return RetrieveOutput(retrieval=Retrieval(**fields))
