"""The reproduction study, over many runs: the suites and their grids,
the papers' values and claims, judging them, the reports and the study
records every table in the docs is generated from."""
