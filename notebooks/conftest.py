"""nbval settings for the chapter notebooks.

stderr (warnings, progress bars) is left out of the comparison; stdout and results are compared.
"""


def pytest_collectstart(collector):
    if collector.fspath and str(collector.fspath).endswith(".ipynb"):
        collector.skip_compare += ("stderr",)
