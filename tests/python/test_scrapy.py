"""neardup.scrapy: a real Scrapy crawl of a local site through the downloader middleware and a
real `neardup serve`; the near-duplicate pages never reach the spider, one page of each group
of copies does, and the index holds what was kept."""

import functools
import http.server
import json
import os
import subprocess
import sys
import textwrap
import threading

import pytest

import neardup

pytest.importorskip("scrapy")


def _site(root):
    """A site of 6 distinct articles, 4 of them copied (another URL, a changed footer), and a
    calendar trap of 8 pages of one template."""
    words = lambda seed: " ".join("w%d" % ((seed * 7919 + j * 104729) % 5003) for j in range(250))
    links, groups = [], []
    for i in range(6):
        body = "<html><head><title>Article %d</title></head><body><p>%s</p>%%s</body></html>" % (
            i, words(i + 1))
        names = ["a%d.html" % i] + (["copy/a%d.html" % i] if i < 4 else [])
        for k, name in enumerate(names):
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(body % ("<footer>served by mirror %d</footer>" % k))
            links.append(name)
        groups.append(names)
    cal = []
    for day in range(8):
        name = "calendar/%d.html" % day
        (root / "calendar").mkdir(exist_ok=True)
        (root / name).write_text(
            "<html><head><title>Calendar</title></head><body><h1>Day %d</h1><p>%s</p></body></html>"
            % (day, words(99)))
        links.append(name)
        cal.append(name)
    (root / "index.html").write_text("<html><body>%s</body></html>" % "".join(
        '<a href="/%s">%s</a> ' % (l, l) for l in links))
    return groups, cal


SPIDER = textwrap.dedent("""
    import json, sys
    import scrapy
    from scrapy.crawler import CrawlerProcess

    start, out, settings = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])

    class Site(scrapy.Spider):
        name = "site"
        start_urls = [start]

        def parse(self, response):
            if not response.url.endswith("/index.html"):
                yield {"url": response.url,
                       "cluster": response.meta.get("neardup", {}).get("cluster")}
            for href in response.css("a::attr(href)").getall():
                yield response.follow(href, self.parse)

    settings.update({
        "DOWNLOADER_MIDDLEWARES": {"neardup.scrapy.NeardupMiddleware": 950},
        "FEEDS": {out: {"format": "json"}},
        "CONCURRENT_REQUESTS": 4, "LOG_LEVEL": "INFO", "ROBOTSTXT_OBEY": False,
        "TELNETCONSOLE_ENABLED": False,
    })
    p = CrawlerProcess(settings)
    crawler = p.create_crawler(Site)
    p.crawl(crawler)
    p.start()
    print(json.dumps({k: v for k, v in crawler.stats.get_stats().items()
                      if k.startswith("neardup/")}))
""")


@pytest.fixture
def site(tmp_path):
    root = tmp_path / "site"
    root.mkdir()
    groups, cal = _site(root)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield "http://127.0.0.1:%d" % server.server_address[1], groups, cal
    server.shutdown()


def _serve(index, *extra):
    p = subprocess.Popen([os.environ["NEARDUP_BIN"], "serve", "--index", str(index),
                          "--listen", "127.0.0.1:0", *extra], stdout=subprocess.PIPE, text=True)
    return p, p.stdout.readline().split("listening on ")[1].strip()


def _crawl(tmp_path, start, settings, name):
    out = tmp_path / (name + ".json")
    script = tmp_path / "spider.py"
    script.write_text(SPIDER)
    r = subprocess.run([sys.executable, str(script), start, str(out), json.dumps(settings)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    stats = json.loads(r.stdout.strip().splitlines()[-1])
    return [i["url"] for i in json.loads(out.read_text())], stats


def test_a_scrapy_crawl_skips_near_duplicate_pages(tmp_path, site):
    base, groups, cal = site
    idx = tmp_path / "idx"
    neardup.Index.create(idx)
    served, addr = _serve(idx, "--label", "scrapy")
    try:
        got, stats = _crawl(tmp_path, base + "/index.html", {"NEARDUP_URL": addr}, "add")
        paths = {u[len(base) + 1:] for u in got}
        # One page of each article's copies reached the spider; one calendar page.
        for names in groups:
            assert len(paths & set(names)) == 1, (names, sorted(paths))
        assert len(paths & set(cal)) == 1, sorted(paths)
        assert stats["neardup/kept"] == len(groups) + 1 + 1  # articles, a calendar day, index
        assert stats["neardup/duplicates"] == 4 + len(cal) - 1
        assert "neardup/errors" not in stats
        # The index holds exactly the kept pages.
        held = neardup.Index.open(idx).stats()["pages"]
        assert held == stats["neardup/kept"]
        # A second crawl of the same site finds everything held: nothing reaches the spider.
        again, stats2 = _crawl(tmp_path, base + "/index.html", {"NEARDUP_URL": addr}, "again")
        assert again == [] and stats2.get("neardup/kept", 0) == 0
    finally:
        served.terminate()
        served.wait(timeout=30)


def test_budgets_let_a_trap_through_up_to_its_budget(tmp_path, site):
    base, groups, cal = site
    idx = tmp_path / "idx"
    neardup.Index.create(idx)
    # Index the trap's first three days, then crawl with lookups under a budget of 3.
    served, addr = _serve(idx, "--label", "seed")
    try:
        import urllib.request
        for day in range(3):
            html = (tmp_path / "site" / cal[day]).read_text()
            req = urllib.request.Request(addr + "/v1/add", data=json.dumps(
                {"url": base + "/" + cal[day], "html": html}).encode(),
                headers={"Content-Type": "application/json"})
            assert json.load(urllib.request.urlopen(req, timeout=30))["status"] == "added"
        got, stats = _crawl(tmp_path, base + "/index.html",
                            {"NEARDUP_URL": addr, "NEARDUP_MODE": "lookup", "NEARDUP_BUDGET": 3},
                            "budget")
        paths = {u[len(base) + 1:] for u in got}
        # Every calendar page's cluster holds 3 pages: all are dropped; articles all pass
        # (lookups add nothing, so copies are not compared with each other).
        assert not paths & set(cal), sorted(paths)
        assert all(n in paths for names in groups for n in names)
        assert stats["neardup/duplicates"] == len(cal)
    finally:
        served.terminate()
        served.wait(timeout=30)


def test_a_service_that_is_down_keeps_pages_and_counts_errors(tmp_path, site):
    base, groups, cal = site
    got, stats = _crawl(tmp_path, base + "/index.html", {"NEARDUP_URL": "http://127.0.0.1:9"},
                        "down")
    assert len(got) == sum(len(g) for g in groups) + len(cal)
    assert stats["neardup/errors"] >= len(got)
    # Asked to fail closed, nothing reaches the spider.
    got, stats = _crawl(tmp_path, base + "/index.html",
                        {"NEARDUP_URL": "http://127.0.0.1:9", "NEARDUP_FAIL_OPEN": False}, "closed")
    assert got == []
