/*
 * Rectangular linear assignment for topology-aware placement (TATP, Liu et
 * al. Sec. 4.3, which chooses the algorithm of R. Jonker and A. Volgenant,
 * "A shortest augmenting path algorithm for dense and sparse linear
 * assignment problems", Computing 38, 1987).
 *
 * Rows enter the matching one at a time. For row r a Dijkstra search over
 * the columns, on the costs reduced by the dual potentials (u per row, v per
 * column), finds the shortest alternating path from r to a free column: a
 * scanned column that is matched leads on to its row, whose edges are then
 * relaxed. The potentials are moved by the distances found, which keeps
 * every reduced cost >= 0 and those of the matching at 0, and the path is
 * flipped. One search scans at most one column per matched row, O(m) each:
 * O(n m) per row, O(n^2 m) in all, O(n^3) when square. JV's initialisation
 * heuristics (column reduction, augmenting row reduction) are left out: they
 * only save time, and column reduction has no rectangular counterpart.
 *
 * The dual of the rectangular problem is: maximise sum u + sum v subject to
 * u_i + v_j <= c_ij and v_j <= 0 (a column may stay free). v starts at 0 and
 * only falls on scanned columns, which are matched from then on, so a free
 * column keeps v = 0 and the matching is optimal once every row is in.
 * Only the first row's edges may have negative reduced costs (from u = 0),
 * and those leave the search's source, where Dijkstra allows them: costs may
 * be negative.
 *
 * Ties: the search takes the unscanned column of least distance, lowest
 * index first, and a column's predecessor is the first row that reached it
 * at its final distance, so the result is a function of the costs alone.
 */
#include <math.h>
#include <stdlib.h>

#include "base/error.h"
#include "place/lap.h"

typedef struct lap_work {
    int n, m;
    const double *cost;
    double *u;       /* n: row potentials */
    double *v;       /* m: column potentials, <= 0 */
    double *dist;    /* m: search distances */
    int *row_of_col; /* m: -1 when free */
    int *pred;       /* m: row the search reached the column from, -1 before */
    int *scanned;    /* m: 1 once the current search has taken the column */
    int *left;       /* m: columns not yet scanned, nleft of them */
    int nleft;
    int *rows;       /* n: rows reached by the current search, nrows of them */
    int nrows;
} lap_work_t;

static void lap_free(lap_work_t *w)
{
    free(w->u);
    free(w->v);
    free(w->dist);
    free(w->row_of_col);
    free(w->pred);
    free(w->scanned);
    free(w->left);
    free(w->rows);
}

static int lap_alloc(lap_work_t *w, int n, int m, const double *cost)
{
    size_t sn = (size_t)n, sm = (size_t)m;
    *w = (lap_work_t){.n = n, .m = m, .cost = cost};
    w->u = calloc(sn, sizeof(double));
    w->v = calloc(sm, sizeof(double));
    w->dist = malloc(sm * sizeof(double));
    w->row_of_col = malloc(sm * sizeof(int));
    w->pred = malloc(sm * sizeof(int));
    w->scanned = malloc(sm * sizeof(int));
    w->left = malloc(sm * sizeof(int));
    w->rows = malloc(sn * sizeof(int));
    if (!w->u || !w->v || !w->dist || !w->row_of_col || !w->pred || !w->scanned || !w->left || !w->rows) {
        lap_free(w);
        return COLIO_ERR_NOMEM;
    }
    for (int j = 0; j < m; j++)
        w->row_of_col[j] = -1;
    return COLIO_SUCCESS;
}

/*
 * Relax row i's edges, reached at distance base, then return the unscanned
 * column of least distance (lowest index on ties). A column's predecessor
 * is set on its first visit even if the distance is not a number (costs
 * near the double range): the path back to the search's row always exists.
 */
static int relax_and_pick(lap_work_t *w, int i, double base)
{
    const double *c = w->cost + (size_t)i * (size_t)w->m, *v = w->v;
    const double h = base - w->u[i];
    double *dist = w->dist;
    int *pred = w->pred, *left = w->left, best = -1, at = -1;
    for (int k = 0; k < w->nleft; k++) {
        int j = left[k];
        double d = h + c[j] - v[j];
        if (pred[j] < 0 || d < dist[j]) {
            dist[j] = d;
            pred[j] = i;
        }
        if (best < 0 || dist[j] < dist[best] || (dist[j] == dist[best] && j < best)) {
            best = j;
            at = k;
        }
    }
    left[at] = left[--w->nleft];
    return best;
}

/* Shortest alternating path from free row r to a free column: the column. */
static int search(lap_work_t *w, int r)
{
    for (int j = 0; j < w->m; j++) {
        w->dist[j] = INFINITY;
        w->pred[j] = -1;
        w->scanned[j] = 0;
        w->left[j] = j;
    }
    w->nleft = w->m;
    w->nrows = 0;
    int i = r;
    double base = 0.0;
    for (;;) {
        w->rows[w->nrows++] = i;
        int j = relax_and_pick(w, i, base);
        w->scanned[j] = 1;
        if (w->row_of_col[j] < 0)
            return j;
        i = w->row_of_col[j];
        base = w->dist[j];
    }
}

/*
 * Move the potentials by the distances (dmin: the free column's): reduced
 * costs stay >= 0, those along the path become 0.
 */
static void update_duals(lap_work_t *w, const int *col_of_row, int r, double dmin)
{
    w->u[r] += dmin;
    for (int k = 1; k < w->nrows; k++) {
        int i = w->rows[k];
        w->u[i] += dmin - w->dist[col_of_row[i]];
    }
    for (int j = 0; j < w->m; j++)
        if (w->scanned[j])
            w->v[j] -= dmin - w->dist[j];
}

/* Flip the path ending at free column j back to row r. */
static void augment(lap_work_t *w, int *col_of_row, int r, int j)
{
    for (;;) {
        int i = w->pred[j], prev = col_of_row[i];
        w->row_of_col[j] = i;
        col_of_row[i] = j;
        if (i == r)
            return;
        j = prev;
    }
}

int colio_lap_solve(int n, int m, const double *cost, int *col_of_row, double *total)
{
    if (n < 1 || n > m || !cost || !col_of_row)
        return COLIO_ERR_ARG;
    lap_work_t w;
    int rc = lap_alloc(&w, n, m, cost);
    if (rc != COLIO_SUCCESS)
        return rc;
    for (int r = 0; r < n; r++)
        col_of_row[r] = -1;
    for (int r = 0; r < n; r++) {
        int j = search(&w, r);
        update_duals(&w, col_of_row, r, w.dist[j]);
        augment(&w, col_of_row, r, j);
    }
    if (total) {
        double s = 0.0;
        for (int r = 0; r < n; r++)
            s += cost[(size_t)r * (size_t)m + (size_t)col_of_row[r]];
        *total = s;
    }
    lap_free(&w);
    return COLIO_SUCCESS;
}
