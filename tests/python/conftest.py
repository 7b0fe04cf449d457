"""Fixtures shared by the test modules: one Spark session on local[2] (pyspark from PyPI,
Debian's OpenJDK 17), started once for every module that asks for it. Every Spark the tests
start, the session and the jobs they run as processes, reads tests/spark-conf."""

import os
import sys
from pathlib import Path

import pytest

os.environ["SPARK_CONF_DIR"] = str(Path(__file__).resolve().parents[1] / "spark-conf")


@pytest.fixture(scope="session")
def spark(tmp_path_factory):
    pyspark = pytest.importorskip("pyspark")
    from pyspark.sql import SparkSession
    # The executors' Python is this one (with neardup and pyarrow installed).
    os.environ["PYSPARK_PYTHON"] = sys.executable
    # Shuffle partitions, the web UI and the JVM's options come from tests/spark-conf.
    s = (SparkSession.builder.master("local[2]").appName("neardup-tests")
         .config("spark.driver.memory", "2g")
         .getOrCreate())
    s.sparkContext.setLogLevel("ERROR")
    s.sparkContext.setCheckpointDir(str(tmp_path_factory.mktemp("checkpoints")))
    assert pyspark.__version__
    yield s
    s.stop()


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    """A real Redis (Debian's redis-server, installed by prepare.sh) on a free loopback port,
    without persistence; yields its port."""
    import shutil
    import socket
    import subprocess
    import time
    exe = shutil.which("redis-server")
    if exe is None:
        pytest.fail("redis-server is not installed: run bash tests/python/prepare.sh")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    folder = tmp_path_factory.mktemp("redis")
    proc = subprocess.Popen([exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(folder)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                time.sleep(0.05)
        else:
            pytest.fail("redis-server did not start")
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=10)
