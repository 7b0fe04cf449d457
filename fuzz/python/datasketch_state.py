"""Fuzz target (atheris): the datasketch-format bytes and pickled states neardup.datasketch
reads: `LeanMinHash.deserialize` in every byte order and `LeanMinHash.__setstate__` and
`bBitMinHash.__setstate__` on arbitrary bytes, and `MinHashLSH.__setstate__` on a datasketch
pickle's attributes made from arbitrary values. Only the documented errors (ValueError,
struct.error, KeyError, TypeError) may come out; what is read writes bytes that read back as
the same signature (byte for byte where the format has no padding or unused bits).

    python fuzz/python/datasketch_state.py CORPUS_DIR -max_total_time=SECONDS
(run by fuzz/run.sh as the target `py_datasketch_state`; needs `pip install atheris` and the
neardup package.)"""

import struct
import sys

import atheris

with atheris.instrument_imports():
    from neardup.datasketch import LeanMinHash, MinHashLSH, bBitMinHash
    from neardup.datasketch import lsh as lsh_module

EXPECTED = (ValueError, struct.error, KeyError, TypeError)


def lean_bytes(data):
    for order in ("@", "<", ">", "!", "="):
        try:
            m = LeanMinHash.deserialize(data, byteorder=order)
        except EXPECTED:
            continue
        size = m.bytesize(order)
        buf = bytearray(size)
        m.serialize(buf, byteorder=order)
        again = LeanMinHash.deserialize(bytes(buf), byteorder=order)
        assert again == m and again.scheme == m.scheme, order
        # Native order aligns the affine schemes' values after the scheme byte (padding).
        if m.scheme == "legacy" or order != "@":
            assert bytes(buf) == data[:size], (order, len(data), size)
        assert len(m) == len(m.hashvalues)
    try:
        m = object.__new__(LeanMinHash)
        m.__setstate__(data)
    except EXPECTED:
        pass
    else:
        back = m.__getstate__()
        if m.scheme == "legacy":
            assert bytes(back) == data[:len(back)]
        again = object.__new__(LeanMinHash)
        again.__setstate__(back)
        assert again == m
    try:
        bb = object.__new__(bBitMinHash)
        bb.__setstate__(data)
    except EXPECTED:
        return
    again = object.__new__(bBitMinHash)
    again.__setstate__(bb.__getstate__())
    assert again == bb or bb.r != bb.r  # a NaN r is never equal to itself


class _Storage:
    def __init__(self, d):
        self._dict = d


def lsh_state(fdp):
    b, r = fdp.ConsumeIntInRange(0, 40), fdp.ConsumeIntInRange(0, 40)
    stored = {}
    for _ in range(fdp.ConsumeIntInRange(0, 8)):
        key = fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 12))
        names = [fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 80))
                 for _ in range(fdp.ConsumeIntInRange(0, 6))]
        stored[key] = names
    state = {"h": None, "b": b, "r": r, "prepickle": fdp.ConsumeBool(), "hashfunc": None,
             "hashranges": [(i * r, (i + 1) * r) for i in range(b)], "keys": _Storage(stored),
             "hashtables": [], "_buffer_size": 50000}
    lsh = object.__new__(MinHashLSH)
    try:
        lsh.__setstate__(state)
    except EXPECTED:
        return
    # What was read answers like an index: every key it holds is in it.
    for key in stored:
        if key in lsh:
            lsh.remove(key)
    names = [fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 64)) for _ in range(3)]
    try:
        lsh_module._row_values_of_names(names, max(r, 1))
    except EXPECTED:
        pass


def test_one(data):
    lean_bytes(data)
    lsh_state(atheris.FuzzedDataProvider(data))


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one)
    atheris.Fuzz()
