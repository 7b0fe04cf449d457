"""neardup from Python: the Rust engine's jobs and objects, nothing reimplemented in Python.

Datasets and crawls::

    import pyarrow as pa, neardup
    table = pa.table({"id": [1, 2, 3], "text": ["a page about ducks", "a page about ducks", "other"]})
    result = neardup.dedup(table, threshold=0.8)       # a pyarrow.Table, one row per input row
    kept = table.filter(result["keep"])

    clusters = neardup.dedup(paths=["crawl.warc.gz"])   # the whole pipeline in Rust

`dedup` takes a pyarrow Table, RecordBatch or RecordBatchReader, a polars or pandas DataFrame
(through the Arrow PyCapsule interface: the text is read in place, not copied) or an iterable
of dicts. Its settings and results are those of `neardup dedup`.

The objects datasketch users know, with the same method names, so a datasketch script ports by
changing an import::

    from neardup import MinHash, MinHashLSH   # was: from datasketch import MinHash, MinHashLSH

    m1, m2 = MinHash(num_perm=128), MinHash(num_perm=128)
    m1.update_batch(w.encode() for w in "a page about near duplicates".split())
    m2.update_batch(w.encode() for w in "a page about near duplicate pages".split())
    lsh = MinHashLSH(threshold=0.5, num_perm=128)
    lsh.insert("m1", m1)
    print(lsh.query(m2), m1.jaccard(m2))

On Spark, ``neardup.spark.dedup(df, "text", "id")`` gives the same answer from a PySpark
DataFrame, computed by the engine in the executors (pyspark is imported only there).

Differences from datasketch: `digest()` returns a list of 64-bit ints (no numpy needed);
elements may be `str` (taken as UTF-8) as well as `bytes`; LSH keys are `str`, `bytes` or
`int`; a signature's digest does not depend on the order of its elements nor on how they were
split over merged signatures (one-permutation hashing, densified by re-hashing rounds).
"""

import os
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

from neardup import _neardup
from neardup._neardup import ArrowTable, MinHash, MinHashLSH, NeardupError, __version__

__all__ = ["ArrowTable", "Index", "MinHash", "MinHashLSH", "NeardupError", "Pages", "audit",
           "changes", "dedup", "defaults", "demo", "evidence_columns", "contamination", "explain",
           "paragraphs", "read", "__version__"]


def _arrow_result(table):
    """A pyarrow.Table when pyarrow is installed, else the engine's ArrowTable (which any
    Arrow consumer reads through __arrow_c_stream__)."""
    try:
        import pyarrow
    except ImportError:
        return table
    return pyarrow.table(table)


def _as_arrow_input(data):
    """pandas without the PyCapsule interface (pandas < 2.2) goes through pyarrow."""
    if data is None or hasattr(data, "__arrow_c_stream__") or hasattr(data, "__arrow_c_array__"):
        return data
    if type(data).__module__.split(".")[0] == "pandas":
        import pyarrow

        return pyarrow.Table.from_pandas(data, preserve_index=False)
    return data


def _progress_callback(progress):
    """A callable as it is; True: a tqdm bar over the input bytes when tqdm is installed (a
    warning naming the package when it is not)."""
    if progress is None or progress is False:
        return None, None
    if callable(progress):
        return progress, None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        import warnings
        warnings.warn("progress=True shows a tqdm bar, and tqdm is not installed: "
                      "pip install tqdm (or neardup[progress]); running without one",
                      stacklevel=3)
        return None, None
    bar = tqdm(total=0, unit="B", unit_scale=True, desc="neardup")

    def update(done, total):
        if total and bar.total != total:
            bar.total = total
        bar.n = done
        bar.refresh()

    return update, bar


def _paths(paths):
    if isinstance(paths, (str, bytes, os.PathLike)):
        return [paths]
    return paths


PathLike = Union[str, "os.PathLike[str]"]
Paths = Union[PathLike, Sequence[PathLike]]
Progress = Union[None, bool, Callable[[int, int], Any]]


def _with_progress(progress, job):
    """Runs `job(callback)` with the callback `progress` asks for, closing its bar after."""
    callback, bar = _progress_callback(progress)
    try:
        return job(callback)
    finally:
        if bar is not None:
            bar.close()


def dedup(data: Any = None, text: str = "text", id: Optional[str] = "id",
          url: Optional[str] = None, *, date: Optional[str] = None, html: bool = False,
          paths: Optional[Paths] = None,
          threads: Optional[int] = None, strict: bool = False, progress: Progress = None,
          write_kept: Optional[Union[str, "os.PathLike[str]"]] = None, kept_counts: bool = False,
          kept_language: bool = False, reference: Optional[Paths] = None, **settings: Any) -> Any:
    """Near-duplicate clusters of a dataset, or of crawl files: the `neardup dedup` job, with
    its defaults and settings, run in Rust with the GIL released.

    data: a pyarrow Table / RecordBatch / RecordBatchReader, a polars or pandas DataFrame, any
        object with ``__arrow_c_stream__``, or an iterable of mappings. ``text`` names the text
        column (str or UTF-8 bytes; no nulls), ``id`` the caller's ids (kept as they are; the
        row's position when there is no such column), ``url`` an optional URL column,
        ``date`` an optional column of capture dates (as WARC-Date writes them; null or empty
        for an undated row), which ``keep="newest"`` reads. ``html=True``: the text column holds HTML (bytes in any charset, or str), read as the
        CLI reads a page: charset, markup, main content, meta refresh and soft-404 pages set
        aside.
    paths: crawl files or folders (WARC, ARC, WACZ packages, JSONL, Parquet, HTML folders)
        instead of data.
    write_kept: with JSONL or Parquet ``paths``, a folder to write the kept corpus to, as
        ``neardup dedup --write-kept`` does: every record the run did not remove, byte for
        byte, one file per input in its own format; ``kept_counts=True`` adds
        ``neardup_cluster_size`` and ``neardup_removed_copies`` to each, ``kept_language=True``
        ``neardup_language``. For ``data``, the kept corpus is ``data.filter(result["keep"])``.
    reference: with ``paths``, files of an earlier dump to deduplicate against (as ``neardup
        dedup --reference``): read and matched like the others, never written, and a cluster
        holding one of their documents keeps it, so every copy of it in ``paths`` goes.

    Settings, as the CLI's flags, each left to the library's default unless given (see
    ``neardup.defaults()``): ``threshold`` (Jaccard), ``containment`` and
    ``different_titles_need`` (None turns the rule off; both are on with the default matching
    and off with the paper's supershingles unless given), ``matching`` ("bands" or
    "supershingles", with ``level`` the B-similarity), ``bands`` and ``rows`` (--bands, --rows:
    force the LSH tables instead of choosing them from the threshold), ``shingle`` (words per
    shingle, -k), ``wrap``, ``num_perm`` (--minhashes), ``content`` ("main" or "page"),
    ``minhash`` ("oph" or "rabin"), ``verify`` (exact Jaccard), ``keep`` ("first",
    "shortest-url", "longest-text", "newest"), ``cluster`` ("union-find" or "star"), ``site``,
    ``per_language`` (match pages only within their language, as ``--per-language``).
    ``threads``; ``strict`` (a malformed record in a crawl file is an error rather than
    skipped and counted).

    progress: a callable ``f(done_bytes, total_bytes)``, or True for a tqdm bar when tqdm is
    installed.

    Returns, for data, one row per input row in order: ``id``, ``row``, ``language`` (ISO
    639-3, "und" when the text says too little), ``cluster`` (null when
    the row has no near-duplicate), ``cluster_size``, ``canonical`` (the id of the row kept
    for its cluster), ``canonical_row``, ``keep``, and the evidence against the kept row
    (the columns of ``neardup.evidence_columns()``: ``rule``, ``b_similarity``,
    ``estimated_jaccard``, ``exact_jaccard``, ``c_similarity``, ``rp_distance``,
    ``hm_distance``, ``containment``, ``titles``, ``boilerplate_a``, ``boilerplate_b``,
    ``shared_shingles``; null for
    kept rows). For paths, the clusters table of ``neardup dedup``: one row per
    clustered page. A pyarrow.Table when pyarrow is installed, else an ArrowTable.

    >>> import neardup
    >>> rows = [{"id": "a", "text": "the quick brown fox jumps over the lazy dog " * 5},
    ...         {"id": "b", "text": "the quick brown fox jumps over the lazy dog " * 5},
    ...         {"id": "c", "text": "an entirely different page about something else"}]
    >>> r = neardup.dedup(rows)
    >>> r["keep"].to_pylist(), r["canonical"].to_pylist()
    ([True, False, True], ['a', 'a', 'c'])
    """
    return _arrow_result(_with_progress(progress, lambda callback: _neardup.dedup(
        _as_arrow_input(data), text, id, url, date=date, html=html, paths=_paths(paths),
        threads=threads, strict=strict, progress=callback,
        write_kept=None if write_kept is None else os.fspath(write_kept),
        kept_counts=kept_counts, kept_language=kept_language,
        reference=None if reference is None else [os.fspath(p) for p in _paths(reference)],
        **settings)))


def explain(url_a: str, url_b: str, data: Any = None, text: str = "text",
            id: Optional[str] = "id", url: Optional[str] = "url", *, html: bool = False,
            paths: Optional[Paths] = None, threads: Optional[int] = None, strict: bool = False,
            progress: Progress = None, **settings: Any) -> Dict[str, Any]:
    """Why two pages matched or did not, as ``neardup dedup --explain URL_A URL_B --json -``
    writes it: the `dedup` run over ``paths`` (crawl files) or ``data`` (rows, their ``url``
    column naming the pages), with the same ``settings``, then the pair judged rule by rule.

    Returns a dict: ``a`` and ``b`` (each page's ``title``, ``language``, ``compared_terms``,
    ``chrome_share``, ``shingles``, ``compared`` and ``left_out`` texts, ``cluster``),
    ``evidence`` (every score), ``checks`` (each rule with ``holds`` and its ``role``:
    ``accepts`` or ``requires``), ``accepted``, ``same_cluster``, ``shared_tables`` of
    ``tables`` (candidate keys), ``verdict`` (a sentence), ``diff`` (the compared texts, ``=``
    both, ``-`` a only, ``+`` b only) and ``text`` (all of it as the CLI prints it). A URL that
    names no page of the run is a ``NeardupError``."""
    return _with_progress(progress, lambda callback: _neardup.explain(
        url_a, url_b, _as_arrow_input(data), text, id, url, html=html, paths=_paths(paths),
        threads=threads, strict=strict, progress=callback, **settings))


def paragraphs(paths: Paths, *, unit: Optional[str] = None, policy: Optional[str] = None,
               max_docs: Optional[int] = None, min_chars: Optional[int] = None,
               write_clean: Optional[PathLike] = None, text: Optional[str] = None,
               id: Optional[str] = None, html: Optional[str] = None,
               mem_limit: Optional[int] = None, tmp_dir: Optional[PathLike] = None,
               threads: Optional[int] = None, strict: bool = False,
               progress: Progress = None) -> Tuple[Any, Dict[str, Any]]:
    """Repeated paragraphs (or lines) of JSONL or Parquet text files, as ``neardup
    paragraphs`` finds and cuts them: every unit counted over all the files, exactly and in
    bounded memory (``mem_limit`` bytes, spilling to ``tmp_dir``), then every copy but the first
    cut (``policy="first-copy"``, the default) or every copy of a unit in more than
    ``max_docs`` documents (``policy="boilerplate"``). ``unit``: "paragraph" (default) or
    "line"; units under ``min_chars`` characters (default 30) are never cut. ``text``, ``id``
    and ``html`` name the fields (defaults "text", "id", "html"). ``write_clean``: a folder for
    the cleaned files, each in its input's format.

    Returns ``(spans, summary)``: one row per cut (``file``, ``record``, ``id``, ``unit``,
    ``start`` and ``end`` in characters, ``docs`` holding the unit, ``first_file``,
    ``first_record``, ``first_unit``, ``rule``), and the run's summary (the CLI's
    summary.json)."""
    def job(callback):
        return _neardup.paragraphs(
            [os.fspath(p) for p in _paths(paths)], unit=unit, policy=policy, max_docs=max_docs,
            min_chars=min_chars, write_clean=None if write_clean is None else os.fspath(write_clean),
            text=text, id=id, html=html, mem_limit=mem_limit,
            tmp_dir=None if tmp_dir is None else os.fspath(tmp_dir), threads=threads,
            strict=strict, progress=callback)
    spans, summary = _with_progress(progress, job)
    return _arrow_result(spans), summary


def contamination(paths: Paths, eval: Paths, *, ngram: Optional[int] = None,
                  action: Optional[str] = None, margin: Optional[int] = None,
                  write_clean: Optional[PathLike] = None, text: Optional[str] = None,
                  id: Optional[str] = None, eval_text: Optional[str] = None,
                  eval_id: Optional[str] = None, threads: Optional[int] = None,
                  strict: bool = False, progress: Progress = None) -> Tuple[Any, Dict[str, Any]]:
    """Benchmark contamination, as ``neardup decontaminate`` finds it: every document of the
    JSONL or Parquet ``paths`` holding any word n-gram (``ngram`` words, default 13) of an item
    of the ``eval`` sets (their text and id fields: ``eval_text``, ``eval_id``). With
    ``write_clean``, the corpus is written again: ``action="cut"`` (default) removes each span
    and ``margin`` characters (default 200) around it, widened to whole words; ``"drop"`` leaves
    contaminated documents out; ``"report"`` writes nothing.

    Returns ``(spans, summary)``: one row per span (``file``, ``record``, ``id``, ``eval_file``,
    ``item_id``, ``start`` and ``end`` in characters, ``ngrams``), and the CLI's summary.json."""
    def job(callback):
        return _neardup.contamination(
            [os.fspath(p) for p in _paths(paths)], [os.fspath(p) for p in _paths(eval)],
            ngram=ngram, action=action, margin=margin,
            write_clean=None if write_clean is None else os.fspath(write_clean), text=text, id=id,
            eval_text=eval_text, eval_id=eval_id, threads=threads, strict=strict,
            progress=callback)
    spans, summary = _with_progress(progress, job)
    return _arrow_result(spans), summary


def changes(paths: Paths, *, change_probability: Optional[float] = None,
            threads: Optional[int] = None, strict: bool = False,
            progress: Progress = None) -> Tuple[Any, Any, Dict[str, Any]]:
    """How each URL changed from capture to capture, and when to visit it next, as
    ``neardup changes`` says it: every response record of the crawl files ``paths`` (WARC, ARC;
    any status) is a capture of its URL, ordered by date and compared with the one before it.

    Returns ``(timeline, schedule, summary)``: ``timeline`` one row per capture (``url``,
    ``date``, ``file``, ``offset``, ``digest``, ``status``, ``change``: unchanged, markup-only,
    dates-only, few-words, large-edit, content-replaced, gone or moved, null for a URL's first
    capture; ``rule``, ``chunks_out``, ``chunks_in``, ``chunks_before``, ``chunks_after``,
    ``jaccard``: what decided; ``compared_with``: the date of the capture compared with);
    ``schedule`` one row per URL (``next_visit``, ``next_in_days``, the history's
    ``intervals`` and ``text_changes``, ``group_change_share``, ``rate_per_day``, ``reason``);
    ``summary`` the counts (``captures``, ``urls``, ``by_change``) and ``holdout``, the schedule
    checked on each URL's last capture (``due_now`` and ``spread``, each with
    ``fetches_saved`` and ``changes_missed``), as ``neardup changes --json`` writes it. A URL
    is due again when its text has changed with probability ``change_probability`` (the CLI's
    default when left out)."""
    def job(callback):
        return _neardup.changes([os.fspath(p) for p in _paths(paths)],
                                change_probability=change_probability, threads=threads,
                                strict=strict, progress=callback)
    timeline, schedule, summary = _with_progress(progress, job)
    return _arrow_result(timeline), _arrow_result(schedule), summary


def demo(path: Union[str, "os.PathLike[str]"] = "neardup-demo") -> Dict[str, str]:
    """Writes the example world README's examples run in (`neardup demo DIR`): the sample
    crawl, three weekly crawls of one URL space, a corpus with near-duplicates, an evaluation
    set with leaks, labels, a Parquet dump... The folder must not exist or be empty
    (`NeardupError` of kind `not-empty` otherwise). Returns each file or folder written and
    what it is; README.txt there says the same."""
    return _neardup.demo(os.fspath(path))


def audit(paths: Paths, *, threads: Optional[int] = None, strict: bool = False,
          progress: Progress = None) -> Dict[str, Any]:
    """A WARC collection's audit in one pass, as ``neardup audit --json`` writes it: revisit
    records resolved as replay resolves them (``revisits``: counts ``by_resolution``, chain
    lengths, missing ``WARC-Refers-To-Target-URI``/``-Date``; ``unresolvable``,
    ``missing_headers`` and ``digest_mismatches``: every such revisit with file, offset and
    reason; ``longest_chains``), payloads stored in full more than once (``payloads``:
    ``bytes_saved_same_url``, ``bytes_saved_any_url``; ``repeated_payloads``) and each host's
    share of near-duplicate pages (``hosts``; data only, WARC has no revisit profile for a
    near-duplicate)."""
    def job(callback):
        return _neardup.audit([os.fspath(p) for p in _paths(paths)], threads=threads,
                              strict=strict, progress=callback)
    return _with_progress(progress, job)


def defaults() -> Dict[str, Any]:
    """What every setting of `dedup` (and `Index.create`, `neardup.spark.dedup`) means when
    it is left out: the library's resolution of an empty request, under the keyword names."""
    return dict(_neardup.defaults())


def evidence_columns() -> List[Tuple[str, str, bool]]:
    """The evidence columns every table that says two rows match carries (``dedup``'s,
    ``Index.query``'s, ``neardup.spark.dedup``'s; the CLI's and the service's too), in order:
    ``(name, kind, nullable)``, kind ``text``, ``uint`` or ``float``. One schema, from the
    library."""
    return list(_neardup.evidence_columns())


class Pages:
    """The pages of crawl files as Arrow record batches, in file and record order (see
    `read`). After iterating, `pages`, `skipped` and `problems` say what was read and which
    records were skipped (file, offset, kind, detail)."""

    def __init__(self, native):
        self._native = native

    def __iter__(self) -> Iterator[Any]:
        try:
            import pyarrow
        except ImportError:
            pyarrow = None
        for table in self._native:
            if pyarrow is None:
                yield table
            else:
                yield from pyarrow.table(table).to_batches()

    def read_all(self) -> Any:
        """Every remaining page as one pyarrow.Table."""
        import pyarrow

        batches = list(self)
        if not batches:
            return pyarrow.table({})
        return pyarrow.Table.from_batches(batches)

    @property
    def pages(self) -> int:
        return self._native.pages

    @property
    def skipped(self) -> int:
        return self._native.skipped

    @property
    def problems(self) -> List[Dict[str, Any]]:
        return self._native.problems


def read(paths: Paths, *, batch_pages: int = 1024, strict: bool = False,
         text_field: str = "text", html_field: str = "html", url_field: str = "url",
         id_field: str = "id", max_record_bytes: Optional[int] = None) -> "Pages":
    """The pages of crawl files (WARC, ARC, WACZ, JSONL, Parquet, gzip or zstd; HTML folders), read by
    the engine's readers, as Arrow record batches of up to `batch_pages` pages: url, host,
    status, date, id (WARC-Record-ID or the id field), ip, mime, kind (html, text, other),
    payload_digest, charset, text (the body decoded to UTF-8: HTML as it is, or the text
    field), body_bytes, file, offset.

    A malformed record is skipped and counted (`Pages.skipped`, `Pages.problems`), or, with
    `strict=True`, raises NeardupError (kind "malformed-input"). The GIL is released while a
    batch is read.

    >>> import neardup
    >>> pages = neardup.read(["data/sample/rustdocs-stable.warc.gz"])  # doctest: +SKIP
    >>> table = pages.read_all()                                      # doctest: +SKIP
    """
    return Pages(_neardup.Reader(
        _paths(paths), batch_pages=batch_pages, strict=strict, text_field=text_field,
        html_field=html_field, url_field=url_field, id_field=id_field,
        max_record_bytes=max_record_bytes))


class Index:
    """A persistent, crash-safe near-duplicate index in a folder (the CLI's ``neardup index``),
    for incremental dedup across datasets: what is added stays on disk, is found by later
    queries, and is shared with ``neardup index`` and ``neardup serve``.

    >>> import neardup, tempfile, os
    >>> folder = os.path.join(tempfile.mkdtemp(), "idx")
    >>> idx = neardup.Index.create(folder, threshold=0.8)
    >>> text = "a page about near duplicates and how to find them in a web crawl " * 3
    >>> idx.add([{"id": "p1", "text": text}], label="monday")["pages"]
    1
    >>> idx.query([{"id": "q1", "text": text}])["match_id"].to_pylist()
    ['p1']
    """

    def __init__(self, path: Any):
        """Opens the index in the folder `path`; raises NeardupError (kind "index") when the
        folder holds no index. (`Index.create` makes a new one.)"""
        if isinstance(path, _neardup.Index):
            self._native = path
        else:
            self._native = _neardup.Index.open(os.fspath(path))

    @classmethod
    def create(cls, path: PathLike, *, minvalue_bits: Optional[int] = None,
               set_bits: Optional[int] = None, timelines: Optional[bool] = None, shards: Optional[Sequence[PathLike]] = None,
               **settings: Any) -> "Index":
        """An empty index in the folder `path`, with `dedup`'s settings (``threshold``,
        ``containment``, ``different_titles_need``, ``shingle``, ``wrap``, ``num_perm``,
        ``content``; the library's defaults for those left out). ``minvalue_bits`` (16 or
        32) is how much of each minvalue a page keeps, ``set_bits`` (an even number from 18
        to 32) how much of each member of a small page's shingle set; ``timelines=True`` keeps capture
        prints, what ``changes`` compares (the library's defaults when left out, as
        ``neardup index create``'s). ``shards`` (folders relative to `path`, or absolute)
        makes a set of shards, read and added to as one index: each add lands whole on the
        shard holding the fewest pages (``add`` says which), every lookup asks them all."""
        return cls(_neardup.Index.create(
            os.fspath(path), minvalue_bits=minvalue_bits, set_bits=set_bits, timelines=timelines,
            shards=None if shards is None else [os.fspath(s) for s in shards], **settings))

    @classmethod
    def open(cls, path: PathLike) -> "Index":
        """The index in the folder `path` (the same as ``Index(path)``)."""
        return cls(_neardup.Index.open(os.fspath(path)))

    @property
    def path(self):
        return self._native.path

    def add(self, data: Any = None, text: str = "text", id: Optional[str] = "id",
            url: Optional[str] = None, *, html: bool = False, paths: Optional[Paths] = None,
            label: str = "python",
            threads: Optional[int] = None, strict: bool = False, again: bool = False,
            progress: Progress = None) -> Dict[str, Any]:
        """Adds rows (any input `dedup` takes; the `id` column's values become the pages'
        ids) or crawl files (`paths=`) under the crawl `label`, as one commit. Adds happen
        once: a record the index already holds (the same WARC-Record-ID, or the same URL,
        payload digest and date, and id for rows) is not added again, and a file the index
        records as added is refused (`again=True` reads it again), unless every file is one
        added under this label (a rerun after a crash): then nothing is done and
        `already_added` is true. Returns a dict: pages, held (pages not added as already
        held), first_id, generation, already_added, shard (the shard that took the add, for
        a set of shards; else None), merged_segments (segments merged in tiers once the add
        committed, 0 when none was due), skipped."""
        return _with_progress(progress, lambda callback: self._native.add(
            _as_arrow_input(data), text, id, url, html=html, paths=_paths(paths), label=label,
            threads=threads, strict=strict, again=again, progress=callback))

    def query(self, data: Any = None, text: str = "text", id: Optional[str] = "id",
              url: Optional[str] = None, *, html: bool = False,
              paths: Optional[Paths] = None, max_matches: Optional[int] = None, threads: Optional[int] = None,
              strict: bool = False, progress: Progress = None) -> Any:
        """Every match of each queried row or page against what the index holds, best first,
        with the evidence: an Arrow table (row, id | url, id; match_id, match_url,
        match_date, match_label, match_page, rule, identical_body, identical_payload,
        estimated_jaccard, exact_jaccard, containment)."""
        return _arrow_result(_with_progress(progress, lambda callback: self._native.query(
            _as_arrow_input(data), text, id, url, html=html, paths=_paths(paths),
            max_matches=max_matches, threads=threads, strict=strict, progress=callback)))

    def stats(self) -> Dict[str, Any]:
        """What the index holds: parameters, matching, pages, segments, bytes, per crawl."""
        return self._native.stats()

    def cluster(self, id: int, offset: int = 0, limit: int = 100) -> Optional[Dict[str, Any]]:
        """A cluster's members, as ``neardup index cluster`` and the service's ``GET
        /v1/cluster/{id}`` give them: ``cluster``, ``size`` (the page ``id`` and every held
        page it matches), ``offset``, ``members`` (in id order, each with its URL, id, date,
        label and the evidence of its match with page ``id``), ``more``. A lookup answer's
        ``cluster`` names the cluster a page would join. ``None`` when no page ``id`` is held."""
        return self._native.cluster(int(id), int(offset), int(limit))

    def digests(self, digests: Sequence[str]) -> List[Dict[str, Any]]:
        """The held pages whose payload has each digest, oldest first, as ``neardup index
        digest`` and the service's ``GET /v1/digest`` give them: ``digest`` (the one asked
        for, normalized: ``sha1:BASE32`` or ``sha256:`` and hex), ``sha1``, ``url``, ``id``,
        ``date``, ``label``, ``page``. A digest may be SHA-1 or SHA-256, in base32 or hex,
        with its ``sha1:``/``sha256:`` prefix or without."""
        return self._native.digests([str(d) for d in digests])

    def changes(self, url: str) -> Dict[str, Any]:
        """One URL's timeline from the index's captures, as ``neardup index changes --json``
        and the service's ``GET /v1/changes`` give it: ``captures`` (each with its crawl
        label in ``file``, ``date``, ``digest``, ``simhash`` and how it changed since the one
        before: ``change``, ``rule``, ``jaccard``, ``simhash_distance``...), ``next_visit``
        and ``captures_without_print``."""
        return self._native.changes(url)

    def __repr__(self):
        return "neardup.Index(%r)" % os.fspath(self.path)
