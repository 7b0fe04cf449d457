"""What python/examples/spark_dedup.py and ray_dedup.py share: the dedup settings' flags (the
CLI's names) and the components' flags, the settings they mean (only what was given: the library decides the rest), the
settings of an index the job creates, and the result moved into place atomically."""
import os
import shutil


def add_flags(ap):
    """The dedup settings' flags, on an argparse parser."""
    ap.add_argument("--threshold", type=float, default=None, help="default: the library's")
    ap.add_argument("--containment", type=float, default=None,
                    help="negative: off (default: the library's)")
    ap.add_argument("--bands", type=int, default=None, help="with --rows: force the LSH tables")
    ap.add_argument("--rows", type=int, default=None)
    ap.add_argument("--num-perm", type=int, default=None)
    ap.add_argument("--shingle", type=int, default=None)
    ap.add_argument("--no-wrap", action="store_true")
    ap.add_argument("--content", default=None, choices=["main", "page"])
    ap.add_argument("--verify", action="store_true")
    ap.add_argument("--keep", default=None)


def add_cluster_flags(ap):
    """Where the components are found: the flags both jobs share."""
    ap.add_argument("--local-edges", type=int, default=None,
                    help="graphs of at most this many accepted pairs are clustered in the "
                    "driver, larger ones in the workers (0: always there; default: the library's)")
    ap.add_argument("--max-rounds", type=int, default=None,
                    help="the components' rounds in the workers at most (default: the library's)")


def cluster_settings(a):
    """The components' settings the flags gave."""
    given = dict(local_edges=a.local_edges, max_rounds=a.max_rounds)
    return {k: v for k, v in given.items() if v is not None}


def index_settings(a):
    """The signature settings the flags gave (an index's)."""
    given = dict(threshold=a.threshold, shingle=a.shingle, num_perm=a.num_perm,
                 content=a.content, wrap=False if a.no_wrap else None)
    given = {k: v for k, v in given.items() if v is not None}
    if a.containment is not None:  # None is the setting "off": passed only when asked
        given["containment"] = None if a.containment < 0 else a.containment
    return given


def settings(a):
    """The dedup settings the flags gave; the library decides the others."""
    given = dict(bands=a.bands, rows=a.rows, keep=a.keep, verify=a.verify or None)
    return dict(index_settings(a), **{k: v for k, v in given.items() if v is not None})


def write_atomically(out, write):
    """`write(folder)` into a temporary folder beside `out`, renamed into place when complete
    (replacing `out`)."""
    tmp = out + ".tmp-%d" % os.getpid()
    write(tmp)
    if os.path.exists(out):
        shutil.rmtree(out) if os.path.isdir(out) else os.remove(out)
    os.rename(tmp, out)


def create_index(path, a):
    """The index in `path`, created with the flags' signature settings when it holds none."""
    import neardup
    if not os.path.exists(os.path.join(path, "MANIFEST")):
        neardup.Index.create(path, **index_settings(a))
