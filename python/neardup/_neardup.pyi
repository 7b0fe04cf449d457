import os
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

__version__: str
# Candidate buckets of at most this many pages are expanded into all their pairs.
ALL_PAIRS_BUCKET: int
# A distributed run's defaults: accepted pairs clustered on the driver at most, and the
# components' rounds in the workers at most.
LOCAL_EDGES: int
MAX_ROUNDS: int

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
    date: Optional[str] = None,
    html: bool = False,
    paths: Optional[Sequence[Union[str, "os.PathLike[str]"]]] = None,
    threads: Optional[int] = None,
    strict: bool = False,
    progress: Optional[Callable[[int, int], Any]] = None,
    write_kept: Optional[Union[str, "os.PathLike[str]"]] = None,
    kept_counts: bool = False,
    kept_language: bool = False,
    reference: Optional[Sequence[Union[str, "os.PathLike[str]"]]] = None,
    **settings: Any,
) -> ArrowTable:
    """The native `neardup dedup` job (see `neardup.dedup`, which returns a pyarrow.Table
    when pyarrow is installed); `settings` as `neardup.dedup`'s, defaults from `defaults()`."""
    ...

def explain(
    url_a: str,
    url_b: str,
    data: Any = None,
    text: str = "text",
    id: Optional[str] = "id",
    url: Optional[str] = None,
    *,
    html: bool = False,
    paths: Optional[Sequence[Union[str, "os.PathLike[str]"]]] = None,
    threads: Optional[int] = None,
    strict: bool = False,
    progress: Optional[Callable[[int, int], Any]] = None,
    **settings: Any,
) -> Dict[str, Any]:
    """Why two pages of a dedup run matched or did not (see `neardup.explain`)."""
    ...

def paragraphs(
    paths: Sequence[Union[str, "os.PathLike[str]"]],
    *,
    unit: Optional[str] = None,
    policy: Optional[str] = None,
    max_docs: Optional[int] = None,
    min_chars: Optional[int] = None,
    write_clean: Optional[Union[str, "os.PathLike[str]"]] = None,
    text: Optional[str] = None,
    id: Optional[str] = None,
    html: Optional[str] = None,
    mem_limit: Optional[int] = None,
    tmp_dir: Optional[Union[str, "os.PathLike[str]"]] = None,
    threads: Optional[int] = None,
    strict: bool = False,
    progress: Optional[Callable[[int, int], Any]] = None,
) -> Tuple[ArrowTable, Dict[str, Any]]:
    """The native `neardup paragraphs` (see `neardup.paragraphs`)."""
    ...

def contamination(
    paths: Sequence[Union[str, "os.PathLike[str]"]],
    eval: Sequence[Union[str, "os.PathLike[str]"]],
    *,
    ngram: Optional[int] = None,
    action: Optional[str] = None,
    margin: Optional[int] = None,
    write_clean: Optional[Union[str, "os.PathLike[str]"]] = None,
    text: Optional[str] = None,
    id: Optional[str] = None,
    eval_text: Optional[str] = None,
    eval_id: Optional[str] = None,
    threads: Optional[int] = None,
    strict: bool = False,
    progress: Optional[Callable[[int, int], Any]] = None,
) -> Tuple[ArrowTable, Dict[str, Any]]:
    """The native `neardup decontaminate` (see `neardup.contamination`)."""
    ...

def demo(path: str) -> Dict[str, str]:
    """The native `neardup demo` (see `neardup.demo`)."""
    ...

def defaults() -> Dict[str, Any]:
    """What every dedup setting left out means (the library's resolution of an empty
    request)."""
    ...

def evidence_columns() -> List[Tuple[str, str, bool]]:
    """The evidence schema's columns: (name, kind, nullable), in order."""
    ...

def evidence_ddl() -> str:
    """The evidence columns as Spark DDL."""
    ...

class Index:
    """The persistent index (see `neardup.Index`, which wraps it)."""

    @staticmethod
    def create(
        path: Union[str, "os.PathLike[str]"],
        *,
        minvalue_bits: Optional[int] = None,
        set_bits: Optional[int] = None,
        timelines: Optional[bool] = None,
        shards: Optional[Sequence[Union[str, "os.PathLike[str]"]]] = None,
        **settings: Any,
    ) -> "Index": ...
    @staticmethod
    def open(path: Union[str, "os.PathLike[str]"]) -> "Index": ...
    @property
    def path(self) -> str: ...
    def add(self, data: Any = None, text: str = "text", id: Optional[str] = "id",
            url: Optional[str] = None, *, html: bool = False,
            paths: Optional[Sequence[Any]] = None, label: str = "python", threads: Optional[int] = None, strict: bool = False,
            again: bool = False,
            progress: Optional[Callable[[int, int], Any]] = None) -> Dict[str, Any]: ...
    def query(self, data: Any = None, text: str = "text", id: Optional[str] = "id",
              url: Optional[str] = None, *, html: bool = False,
              paths: Optional[Sequence[Any]] = None, max_matches: Optional[int] = None, threads: Optional[int] = None,
              strict: bool = False,
              progress: Optional[Callable[[int, int], Any]] = None) -> ArrowTable: ...
    def stats(self) -> Dict[str, Any]: ...
    def cluster(self, id: int, offset: int = 0, limit: int = 100) -> Optional[Dict[str, Any]]: ...
    def digests(self, digests: Sequence[str]) -> List[Dict[str, Any]]: ...
    def changes(self, url: str) -> Dict[str, Any]: ...

class Reader:
    """Crawl files as Arrow batches of pages (see `neardup.read`)."""

    def __init__(self, paths: Sequence[Any], *, batch_pages: int = 1024, strict: bool = False,
                 text_field: str = "text", html_field: str = "html", url_field: str = "url",
                 id_field: str = "id", max_record_bytes: Optional[int] = None) -> None: ...
    def __iter__(self) -> Iterator[ArrowTable]: ...
    def __next__(self) -> ArrowTable: ...
    @property
    def pages(self) -> int: ...
    @property
    def skipped(self) -> int: ...
    @property
    def problems(self) -> List[Dict[str, Any]]: ...


class ParagraphParts:
    """A paragraph run's steps, for the executors of `neardup.spark.paragraphs`: units keyed,
    the policy's decision, texts cut (each the engine's, as `neardup paragraphs` does them)."""

    def __init__(self, *, unit: Optional[str] = None, policy: Optional[str] = None,
                 max_docs: Optional[int] = None, min_chars: Optional[int] = None) -> None: ...
    def rule(self) -> str: ...
    def keys(self, texts: List[str]) -> Tuple[List[int], List[int], List[int], List[int]]: ...
    def cuts(self, docs: List[int], first: List[bool]) -> List[bool]: ...
    def cut(self, texts: List[str], cut: List[List[int]]
            ) -> List[Tuple[Optional[str], str, List[Tuple[int, int, int]]]]: ...


class ContaminationParts:
    """A contamination run's steps, for the executors of `neardup.spark.contamination`: the
    evaluation items indexed, each text's spans found and cut as `neardup decontaminate` does."""

    def __init__(self, files: List[str], items: List[Tuple[int, str, str]], *,
                 ngram: Optional[int] = None, action: Optional[str] = None,
                 margin: Optional[int] = None) -> None: ...
    @staticmethod
    def read_eval(eval: Sequence[Union[str, "os.PathLike[str]"]], *,
                  eval_text: Optional[str] = None, eval_id: Optional[str] = None
                  ) -> Tuple[List[str], List[Tuple[int, str, str]]]: ...
    def action(self) -> str: ...
    def find(self, texts: List[str]) -> List[Tuple[int, str, str, int, int, int, str]]: ...
    def cut(self, texts: List[str]) -> List[Optional[str]]: ...


class Parts:
    """One dedup configuration's parts, for the executors of a distributed run (used by
    `neardup.spark`; the engine's `neardup_dedup::parts`). Keyword arguments: `neardup.dedup`'s
    settings (`threads` defaults to 1: one task per core)."""

    def __init__(self, *, threads: Optional[int] = 1, strict: bool = False,
                 **settings: Any) -> None: ...
    def config(self) -> Dict[str, Any]: ...
    def sketch(self, batch: Any, text: str, url: Optional[str] = None,
               html: bool = False,
               date: Optional[str] = None) -> Tuple[ArrowTable, Dict[str, Any]]: ...
    def score(self, batch: Any) -> ArrowTable: ...
    def site_segments(self, batch: Any) -> ArrowTable: ...


def clusters(edges: Any) -> ArrowTable:
    """The clusters of a graph small enough for one machine (used by `neardup.spark`): edges
    `a`, `b` (int64 pages) with each end's canonical-page sort key `a_key`, `b_key` (binary);
    one row per page back: `node`, `cluster`, `cluster_size`, `canonical`."""
    ...

def identity_sets(rows: Any) -> ArrowTable:
    """Identity sets over one partition's rows (every row of an identity key in one partition,
    used by `neardup.spark`): the rows, every column as given, sorted by `(identity, order)`
    (int64s), with `rep` added: the first `order` of their `identity`."""
    ...

def bucket_edges(rows: Any) -> ArrowTable:
    """Candidate edges over one partition's rows (every row of a table's key in one partition):
    `t` (int32), `key`, `order` (int64) of identity-set representatives; one row per edge back,
    `a` < `b` (int64), once per table that pairs them."""
    ...

def canonical_pages(rows: Any) -> ArrowTable:
    """Canonical pages over one partition's rows (every member of a component in one
    partition): `component`, `node` (int64), `keep_key` (binary); one row per page back:
    `node`, `component`, `canonical`, `cluster_size`."""
    ...

def star_edges(rows: Any, large: bool) -> ArrowTable:
    """One step of connected components over one partition's rows `node`, `other` (int64;
    every row of a node in one partition): large-star when `large` (both directions of every
    edge), else small-star (each edge from its larger end); edges `a` < `b` back."""
    ...

def star_breaks(rows: Any) -> ArrowTable:
    """The components' end test over one partition's rows `node`, `other` (int64) and
    `larger` (bool), both ends of every edge: one row, `breaks`, the nodes that keep the edges
    from being stars around each component's smallest node."""
    ...

def index_sketch(path: Union[str, "os.PathLike[str]"], batch: Any, text: str, id: str,
                 url: Optional[str] = None, html: bool = False,
                 strict: bool = False) -> Tuple[ArrowTable, int, int]:
    """A batch's pages sketched as an add to the index in `path` does (used by
    `neardup.spark.add_to_index`): `row`, `page` (a checksummed page record), the number
    of rows that are not pages the index holds, and the number of rows it already holds
    (the same records: left out)."""
    ...

class IndexPartWriter:
    """Writes one part of an add in parts into the index folder (used by
    `neardup.spark.add_to_index`)."""

    def __init__(self, path: Union[str, "os.PathLike[str]"], generation: int, part: int,
                 first_id: int, attempt: int = 0) -> None: ...
    def push(self, batch: Any) -> None: ...
    def finish(self, label: str) -> Dict[str, Any]: ...

class IndexParts:
    """The committing side of an add in parts: holds the index's writer lock until `commit`
    (used by `neardup.spark.add_to_index`)."""

    def __init__(self, path: Union[str, "os.PathLike[str]"]) -> None: ...
    @property
    def generation(self) -> int: ...
    @property
    def first_id(self) -> int: ...
    def commit(self, parts: List[Dict[str, Any]]) -> Dict[str, Any]: ...
    def abandon(self) -> None: ...

def sha1_hash32(data: Any) -> int:
    """datasketch's `sha1_hash32`: the first 4 bytes of the SHA-1 of bytes-like `data`,
    little-endian (a str raises TypeError, as hashlib does)."""
    ...

def sha1_hash64(data: Any) -> int:
    """datasketch's `sha1_hash64` (affine64's default hash): the first 8 bytes of the SHA-1 of
    bytes-like `data`, little-endian."""
    ...

class Permutations:
    """A family of datasketch permutations `(a, b)` of one scheme (`"legacy"`, `"affine32"`,
    `"affine64"`) held natively (used by `neardup.datasketch.MinHash`)."""

    def __init__(self, a: bytes, b: bytes, scheme: str = "legacy") -> None: ...
    def __len__(self) -> int: ...

class Signature:
    """One datasketch signature's values under a `Permutations` family, updated natively
    (used by `neardup.datasketch.MinHash`)."""

    def __init__(self, permutations: Permutations) -> None: ...
    def values(self) -> bytearray: ...
    def set_values(self, values: bytes) -> None: ...
    def update_bytes(self, element: Any) -> None: ...
    def update_bytes_batch(self, elements: Any) -> None: ...
    def update_hash(self, hash: int) -> None: ...
    def update_hashes(self, hashes: List[int]) -> None: ...

MERSENNE_61: int
"""The Mersenne prime 2^61 - 1 of datasketch's permutations."""

MAX_HASH: int
"""2^32 - 1: datasketch's largest hash value, and every value of an empty signature."""

BAND_HASH_VERSION: int
"""The version of the LSH tables' band hashes (kept in pickles, checked when read)."""
"""2^32 - 1: datasketch's largest hash value, and every value of an empty signature."""

def bulk_values(permutations: Permutations, array: Any, threads: Optional[int] = None) -> bytes:
    """The values of one signature per row of an Arrow list array (each row a set of binary,
    string or integer elements), `rows x k` little-endian uint64 bytes (used by
    `neardup.datasketch.bulk_hashvalues`)."""
    ...

def optimal_param(threshold: float, num_perm: int, false_positive_weight: float,
                  false_negative_weight: float) -> Tuple[int, int]:
    """datasketch's `_optimal_param`: the (bands, rows) minimizing the weighted error masses."""
    ...

class LshTables:
    """Native band tables of entries, each one signature under one Python key (used by
    `neardup.datasketch.MinHashLSH`)."""

    def __init__(self, bands: int, rows: int) -> None: ...
    def insert_signature(self, key: Any, signature: Signature) -> int: ...
    def insert_values(self, key: Any, values: bytes) -> int: ...
    def insert_many(self, keys: List[Any], matrix: Any, k: int) -> int: ...
    def insert_hashes(self, key: Any, hashes: List[int]) -> int: ...
    def query_signature(self, signature: Signature) -> List[Any]: ...
    def query_values(self, values: bytes) -> List[Any]: ...
    def query_many(self, matrix: Any, k: int) -> List[List[Any]]: ...
    def remove(self, id: int) -> None: ...
    def band_hashes(self, id: int) -> List[int]: ...
    def buckets(self, band: int) -> List[Tuple[int, int]]: ...
    def bucket(self, band: int, hash: int) -> List[Any]: ...
    def entries(self) -> List[Tuple[Any, List[int]]]: ...
    def __len__(self) -> int: ...

def changes(paths: List[str], *, change_probability: Optional[float] = None,
            threads: Optional[int] = None, strict: bool = False,
            progress: Optional[Callable[[int, int], Any]] = None) -> Tuple[ArrowTable, ArrowTable, Dict[str, Any]]:
    """Every capture's timeline line and every URL's next visit (the CLI's `neardup changes
    --timeline --schedule`), and the counts with the schedule's hold-out check."""
    ...

def audit(paths: List[str], *, threads: Optional[int] = None, strict: bool = False,
          progress: Optional[Callable[[int, int], Any]] = None) -> Dict[str, Any]:
    """A WARC collection's audit, as `neardup audit --json` writes it."""
    ...
