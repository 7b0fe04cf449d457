"""Schemathesis hooks for neardup serve's OpenAPI file: bodies of the media types schemathesis
has no serializer for (NDJSON batches, raw WARC and HTTP bodies) go out as the bytes of the
generated value, so that generated bad input reaches the server."""

import json

import schemathesis


def _bytes(value):
    if value is None:
        return b""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass")
    return json.dumps(value).encode("utf-8")


@schemathesis.serializer("application/x-ndjson", "application/warc", "application/http")
def raw(ctx, value):
    return _bytes(value)
