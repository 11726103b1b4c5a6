"""Results: metrics of a trained grid, results.json and plots, and the
papers' claims checked on finished grids."""
