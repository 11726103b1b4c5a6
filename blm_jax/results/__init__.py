"""Results: metrics of a trained grid, results.json and plots, the papers'
claims checked on finished grids, and the study records every table in the
docs is generated from."""
