"""What python/examples/spark_dedup.py and ray_dedup.py share: the dedup settings' flags (the
CLI's names), the settings they mean (only what was given: the library decides the rest), the
settings of an index the job creates, and the result moved into place atomically."""
import os
import shutil


def add_flags(ap):
    """The dedup settings' flags, on an argparse parser."""
    ap.add_argument("--threshold", type=float, default=0.8)
    ap.add_argument("--containment", type=float, default=0.8, help="negative: off")
    ap.add_argument("--bands", type=int, default=None, help="with --rows: force the LSH tables")
    ap.add_argument("--rows", type=int, default=None)
    ap.add_argument("--num-perm", type=int, default=None)
    ap.add_argument("--shingle", type=int, default=None)
    ap.add_argument("--no-wrap", action="store_true")
    ap.add_argument("--content", default=None, choices=["main", "page"])
    ap.add_argument("--verify", action="store_true")
    ap.add_argument("--keep", default="first")


def index_settings(a):
    """The signature settings of the flags (an index's)."""
    return dict(threshold=a.threshold, containment=None if a.containment < 0 else a.containment,
                shingle=a.shingle, wrap=False if a.no_wrap else None, num_perm=a.num_perm,
                content=a.content)


def settings(a):
    """The dedup settings of the flags."""
    return dict(index_settings(a), bands=a.bands, rows=a.rows, verify=a.verify, keep=a.keep)


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
