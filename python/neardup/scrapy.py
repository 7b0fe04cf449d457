"""Scrapy and a running ``neardup serve``: a downloader middleware that asks the service about
every fetched page before the spider sees it, and drops near-duplicates.

Enable it in a project's settings::

    DOWNLOADER_MIDDLEWARES = {"neardup.scrapy.NeardupMiddleware": 950}
    NEARDUP_URL = "http://127.0.0.1:8088"      # the service

What it does, per response (HTML or text, status 200):

- ``NEARDUP_MODE = "add"`` (the default): ``POST /v1/add?if-new=1`` - the page is added to the
  index unless it matches a held page, in one step, so two workers fetching copies at once keep
  exactly one. A page the service answers ``duplicate`` (or ``held``: the same capture sent
  before) is dropped (``IgnoreRequest``).
- ``NEARDUP_MODE = "lookup"``: ``POST /v1/lookup`` - asks only; the index is not changed.
- ``NEARDUP_BUDGET = N``: with ``lookup``, a page is dropped only once its cluster already
  holds N pages (crawler traps, calendars, faceted search); ``?budget=N`` on the service.

Before fetching, ``NEARDUP_SKIP_HELD_URLS = True`` asks ``GET /cdx?url=&limit=-1`` and skips
URLs the index already holds a capture of (a recrawl that only wants new URLs).

Every answer is kept in ``request.meta["neardup"]`` (the spider reads it as
``response.meta["neardup"]``; a dropped page's is in the ``IgnoreRequest``'s message); the
crawl's stats count ``neardup/kept``,
``neardup/duplicates``, ``neardup/held``, ``neardup/skipped_urls`` and ``neardup/errors``.
When the service cannot be reached, the page is kept (``NEARDUP_FAIL_OPEN = True``, the
default) or dropped (``False``); either way the error is counted and logged.
``NEARDUP_TOKEN`` is sent as a bearer token for adds; ``NEARDUP_LABEL`` names the crawl adds
go to; ``NEARDUP_TIMEOUT`` (seconds, default 10) bounds each request.

The HTTP requests run in Twisted's thread pool, so the crawl's reactor never waits on them.
"""

import json
import logging
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, Optional

logger = logging.getLogger(__name__)

__all__ = ["NeardupMiddleware"]


class NeardupMiddleware:
    """A Scrapy downloader middleware over ``neardup serve`` (see the module's text)."""

    def __init__(self, url: str, *, mode: str = "add", budget: Optional[int] = None,
                 token: Optional[str] = None, label: Optional[str] = None,
                 timeout: float = 10.0, fail_open: bool = True, skip_held_urls: bool = False,
                 stats=None):
        if mode not in ("add", "lookup"):
            raise ValueError("NEARDUP_MODE=%r: expected 'add' or 'lookup'" % (mode,))
        if budget is not None and (int(budget) < 1 or mode != "lookup"):
            raise ValueError("NEARDUP_BUDGET: a count of pages >= 1, with NEARDUP_MODE='lookup'")
        self.base = url.rstrip("/")
        self.mode, self.budget, self.token, self.label = mode, budget, token, label
        self.timeout, self.fail_open, self.skip_held_urls = timeout, fail_open, skip_held_urls
        self.stats = stats

    @classmethod
    def from_crawler(cls, crawler):
        from scrapy.exceptions import NotConfigured
        s = crawler.settings
        url = s.get("NEARDUP_URL")
        if not url:
            raise NotConfigured("NEARDUP_URL is not set")
        budget = s.getint("NEARDUP_BUDGET", 0) or None
        return cls(url, mode=s.get("NEARDUP_MODE", "add"), budget=budget,
                   token=s.get("NEARDUP_TOKEN"), label=s.get("NEARDUP_LABEL"),
                   timeout=s.getfloat("NEARDUP_TIMEOUT", 10.0),
                   fail_open=s.getbool("NEARDUP_FAIL_OPEN", True),
                   skip_held_urls=s.getbool("NEARDUP_SKIP_HELD_URLS", False),
                   stats=crawler.stats)

    # Scrapy's hooks -------------------------------------------------------------------------

    async def process_request(self, request, spider):
        if not self.skip_held_urls:
            return None
        try:
            held = await _in_thread(self._held_url, request.url)
        except Exception as e:  # the service is down: fetch as if it were not there
            self._error(e)
            return None
        if held:
            from scrapy.exceptions import IgnoreRequest
            self._count("skipped_urls")
            raise IgnoreRequest("neardup: the index holds a capture of %s" % request.url)
        return None

    async def process_response(self, request, response, spider):
        if response.status != 200 or not _is_text(response):
            return response
        try:
            answer = await _in_thread(self._ask, response)
        except Exception as e:
            self._error(e)
            if self.fail_open:
                return response
            from scrapy.exceptions import IgnoreRequest
            raise IgnoreRequest("neardup: the service could not be asked: %s" % e)
        request.meta["neardup"] = answer
        status = answer.get("status")
        if status == "held":
            self._count("held")
        elif answer.get("duplicate") or status == "duplicate":
            self._count("duplicates")
        else:
            self._count("kept")
            return response
        from scrapy.exceptions import IgnoreRequest
        best = (answer.get("matches") or [{}])[0]
        raise IgnoreRequest("neardup: %s is a near-duplicate of %s (%s, cluster %s of %s pages)" % (
            response.url, best.get("url", "a held capture"), best.get("rule", status),
            answer.get("cluster"), answer.get("cluster_size")))

    # The service ----------------------------------------------------------------------------

    def _ask(self, response) -> Dict[str, Any]:
        body = {"url": response.url, "html": response.text}
        if self.mode == "add":
            query = {"if-new": "1"}
            if self.label:
                query["label"] = self.label
            path = "/v1/add"
        else:
            query = {"matches": "1"}
            if self.budget:
                query["budget"] = str(self.budget)
            path = "/v1/lookup"
        headers = {"Content-Type": "application/json"}
        if self.token and self.mode == "add":
            headers["Authorization"] = "Bearer " + self.token
        req = urllib.request.Request(
            self.base + path + "?" + urllib.parse.urlencode(query),
            data=json.dumps(body).encode(), headers=headers, method="POST")
        with urllib.request.urlopen(req, timeout=self.timeout) as r:
            return json.load(r)

    def _held_url(self, url: str) -> bool:
        q = urllib.parse.urlencode({"url": url, "limit": "-1", "fl": "timestamp"})
        with urllib.request.urlopen(self.base + "/cdx?" + q, timeout=self.timeout) as r:
            return bool(r.read().strip())

    def _count(self, what: str) -> None:
        if self.stats is not None:
            self.stats.inc_value("neardup/" + what)

    def _error(self, e: Exception) -> None:
        self._count("errors")
        if isinstance(e, urllib.error.HTTPError):
            detail = e.read().decode("utf-8", "replace")[:300]
            logger.warning("neardup service answered %s: %s", e.code, detail)
        else:
            logger.warning("neardup service could not be asked: %s", e)


def _is_text(response) -> bool:
    ctype = response.headers.get("Content-Type", b"").decode("latin-1").lower()
    return ctype.startswith("text/html") or ctype.startswith("text/plain") or \
        ctype.startswith("application/xhtml")


async def _in_thread(fn, *args):
    """Runs a blocking call in Twisted's thread pool and waits for it without blocking the
    reactor (whichever reactor Scrapy runs)."""
    from scrapy.utils.defer import maybe_deferred_to_future
    from twisted.internet import threads
    return await maybe_deferred_to_future(threads.deferToThread(fn, *args))
