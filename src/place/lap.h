/*
 * Rectangular linear assignment (TATP, Liu et al. Sec. 4.3): assign each of
 * n rows (file domains) to a distinct column (candidate aggregator) among
 * m >= n so that the sum of costs is minimal. Jonker-Volgenant shortest
 * augmenting paths with dual potentials: O(n^2 m), O(n^3) when square.
 * Deterministic: ties go to the lowest column index.
 */
#ifndef COLIO_PLACE_LAP_H
#define COLIO_PLACE_LAP_H

/* cost: n x m, row-major (cost[i * m + j]), finite. col_of_row: n entries.
   Returns 0, COLIO_ERR_NOMEM, or COLIO_ERR_ARG when n > m or n < 1. *total (if not NULL) gets the optimum. */
int colio_lap_solve(int n, int m, const double *cost, int *col_of_row, double *total);

#endif
