"""The store: one database, the repositories over it, and its write transactions.

`Store` is the unit of work the research use cases see (`research/ports.py`): each
repository reads in its own transaction, and `transaction()` hands one write
transaction's repositories to a change that must commit as a whole.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from sqlalchemy.exc import IntegrityError

from sosoapi.store.auth_repo import AuthRepository
from sosoapi.store.captures_repo import CaptureRepository
from sosoapi.store.corpora_repo import CorporaInTx, CorpusRepository
from sosoapi.store.database import Database
from sosoapi.store.evidence_repo import EvidenceRepository
from sosoapi.store.mutations_repo import MutationRepository, MutationsInTx
from sosoapi.store.oauth_repo import OAuthRepository
from sosoapi.store.pacing_repo import PacingRepository
from sosoapi.store.projects_repo import ProjectRepository, ProjectsInTx
from sosoapi.store.records import KeyTaken
from sosoapi.store.retrievals_repo import RetrievalRepository
from sosoapi.store.review_repo import ReviewRepository
from sosoapi.store.search_repo import SearchRepository
from sosoapi.store.sessions_repo import SessionRepository
from sosoapi.store.settings import DEFAULT_POOL_SIZE


@dataclass(frozen=True, slots=True)
class Transaction:
    """The repositories of one write transaction: all of it commits, or none."""

    mutations: MutationsInTx
    projects: ProjectsInTx
    corpora: CorporaInTx


class Store:
    def __init__(
        self,
        url: str,
        *,
        migrate: bool = True,
        pool_size: int = DEFAULT_POOL_SIZE,
        storage_limit: int = 0,
    ) -> None:
        """`storage_limit`: the bytes one workspace may store (0: no limit; store/usage.py)."""
        self.db = Database(url, pool_size=pool_size)
        if migrate:
            self.db.migrate()
        self.auth = AuthRepository(self.db)
        self.retrievals = RetrievalRepository(self.db, storage_limit)
        self.evidence = EvidenceRepository(self.db)
        self.captures = CaptureRepository(self.db)
        self.mutations = MutationRepository(self.db)
        self.projects = ProjectRepository(self.db)
        self.corpora = CorpusRepository(self.db)
        self.pacing = PacingRepository(self.db)
        self.search = SearchRepository(self.db)
        self.oauth = OAuthRepository(self.db)
        self.sessions = SessionRepository(self.db)
        self.review = ReviewRepository(self.db)

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """One write transaction; a lost race on a unique key raises `KeyTaken`."""
        lock_rows = not self.db.is_sqlite
        try:
            with self.db.write() as conn:
                yield Transaction(
                    MutationsInTx(conn),
                    ProjectsInTx(conn, lock_rows=lock_rows),
                    CorporaInTx(conn, lock_rows=lock_rows),
                )
        except IntegrityError as exc:
            raise KeyTaken(str(exc.orig)) from exc

    def close(self) -> None:
        self.db.dispose()
