"""Fixtures shared by the test modules: one Spark session on local[2] (pyspark from PyPI,
Debian's OpenJDK 17), started once for every module that asks for it."""

import os
import sys

import pytest


@pytest.fixture(scope="session")
def spark(tmp_path_factory):
    pyspark = pytest.importorskip("pyspark")
    from pyspark.sql import SparkSession
    # The executors' Python is this one (with neardup and pyarrow installed).
    os.environ["PYSPARK_PYTHON"] = sys.executable
    s = (SparkSession.builder.master("local[2]").appName("neardup-tests")
         .config("spark.sql.shuffle.partitions", "4")
         .config("spark.ui.enabled", "false")
         .config("spark.driver.memory", "2g")
         .getOrCreate())
    s.sparkContext.setLogLevel("ERROR")
    s.sparkContext.setCheckpointDir(str(tmp_path_factory.mktemp("checkpoints")))
    assert pyspark.__version__
    yield s
    s.stop()
