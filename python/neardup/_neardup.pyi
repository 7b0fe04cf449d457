import os
from typing import Any, Callable, Iterable, List, Optional, Sequence, Tuple, Union

__version__: str

Element = Union[bytes, str]
Key = Union[str, bytes, int]

class MinHash:
    """A min-hash signature built one element at a time (datasketch's MinHash)."""

    def __init__(self, num_perm: int = 128, seed: int = 1) -> None: ...
    def update(self, b: Element) -> None: ...
    def update_batch(self, bs: Iterable[Element]) -> None: ...
    def jaccard(self, other: "MinHash") -> float: ...
    def merge(self, other: "MinHash") -> None: ...
    def digest(self) -> List[int]: ...
    def is_empty(self) -> bool: ...
    def copy(self) -> "MinHash": ...
    @property
    def seed(self) -> int: ...
    def __len__(self) -> int: ...

class MinHashLSH:
    """An in-memory LSH index of MinHash signatures (datasketch's MinHashLSH)."""

    def __init__(
        self,
        threshold: float = 0.9,
        num_perm: int = 128,
        weights: Tuple[float, float] = (0.5, 0.5),
        params: Optional[Tuple[int, int]] = None,
    ) -> None: ...
    @property
    def b(self) -> int: ...
    @property
    def r(self) -> int: ...
    def insert(self, key: Key, minhash: MinHash, check_duplication: bool = True) -> None: ...
    def query(self, minhash: MinHash) -> List[Key]: ...
    def remove(self, key: Key) -> None: ...
    def is_empty(self) -> bool: ...
    def __contains__(self, key: Key) -> bool: ...
    def __len__(self) -> int: ...

class ArrowTable:
    """Rows in Arrow form, read by any Arrow consumer through the PyCapsule interface
    (``pyarrow.table(t)``, ``polars.DataFrame(t)``)."""

    def __arrow_c_stream__(self, requested_schema: Optional[Any] = None) -> Any: ...
    def __len__(self) -> int: ...
    @property
    def column_names(self) -> List[str]: ...

class NeardupError(Exception):
    """An error the engine reported; ``kind`` names which (input, malformed-input, index,
    settings, output, nothing-read, ...)."""

    kind: str

def dedup(
    data: Any = None,
    text: str = "text",
    id: Optional[str] = "id",
    url: Optional[str] = None,
    *,
    paths: Optional[Sequence[Union[str, "os.PathLike[str]"]]] = None,
    threshold: float = 0.8,
    containment: Optional[float] = 0.8,
    matching: str = "bands",
    level: int = 2,
    shingle: Optional[int] = None,
    wrap: Optional[bool] = None,
    num_perm: Optional[int] = None,
    content: Optional[str] = None,
    verify: bool = False,
    keep: str = "first",
    threads: Optional[int] = None,
    strict: bool = False,
    progress: Optional[Callable[[int, int], Any]] = None,
) -> ArrowTable:
    """The native `neardup dedup` job (see `neardup.dedup`, which returns a pyarrow.Table
    when pyarrow is installed)."""
    ...
