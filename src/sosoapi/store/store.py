"""The store: one database and the repositories over it."""

from __future__ import annotations

from sosoapi.store.auth_repo import AuthRepository
from sosoapi.store.database import Database
from sosoapi.store.evidence_repo import EvidenceRepository
from sosoapi.store.mutations_repo import MutationRepository
from sosoapi.store.pacing_repo import PacingRepository
from sosoapi.store.projects_repo import CorpusRepository, ProjectRepository
from sosoapi.store.receipts import ReceiptRepository


class Store:
    def __init__(self, url: str, *, migrate: bool = True) -> None:
        self.db = Database(url)
        if migrate:
            self.db.migrate()
        self.auth = AuthRepository(self.db)
        self.receipts = ReceiptRepository(self.db)
        self.evidence = EvidenceRepository(self.db)
        self.mutations = MutationRepository(self.db, self.receipts)
        self.projects = ProjectRepository(self.db)
        self.corpora = CorpusRepository(self.db)
        self.pacing = PacingRepository(self.db)

    def close(self) -> None:
        self.db.dispose()
