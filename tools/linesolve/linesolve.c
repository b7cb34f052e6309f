/* linesolve: move generator, endgame tables and df-pn solver of the line games
 * (Mosona, Kolowis short) on boards of at most 25 points, in C.
 *
 * The board's geometry and rule options come from a rules file written by the Python
 * driver (tools/solve_mosona.py) from the rules engine's own tables (zuni.line.adjacency
 * and jump_table), so the C move generator reads exactly the edges and landings the
 * Python engine reads. Rules file: whitespace-separated integers
 *     points quiet stall_draw chain(0 none, 1 optional, 2 forced) must_capture width
 *     first[points + 1] targets[edges] landings[edges * width]
 *
 * Commands (masks are bit sets of points, point p = bit p; turn 0 south, 1 north):
 *   linesolve RULES perft SOUTH NORTH TURN QUIET DEPTH
 *   linesolve RULES tbdump PIECES OUT      every table up to PIECES, every value (int16)
 *   linesolve RULES tbbuild PIECES OUT     the tables as win/draw/loss bits, for solve
 *   linesolve RULES probe TABLES < lines "SOUTH NORTH TURN QUIET"   (+1/0/-1, 2 uncovered)
 *   linesolve RULES solve TEAM SOUTH NORTH TURN QUIET [options]
 *       --tb FILE --nodes N --seconds S --tt-mb MB --eps E --book FILE --book-plies P
 *       --progress S --init 0|1|2|3 (new nodes: 1/1, mobility, material and count, both) --init-k K
 * Build: gcc -O2 -o linesolve linesolve.c (no dependencies).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXP 25
#define MAXQ 63
#define MAXMOVES 65536 /* moves of a position (paths: optional chains have many) */
#define MAXCHILD 256  /* distinct positions after a move, in the solver */
#define WIN_T 32000

typedef uint32_t u32;
typedef uint64_t u64;

static int P, Q, STALL_DRAW, CHAIN, MUST_CAPTURE, WIDTH;
static int FIRST[MAXP + 1];
static int TARGET[4 * MAXP * 2];
static int LAND[4 * MAXP * 2 * 8];
static u32 ALL;

static void die(const char *msg, const char *what) {
    fprintf(stderr, "linesolve: %s%s%s\n", msg, what ? ": " : "", what ? what : "");
    exit(2);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void read_rules(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) die("cannot open the rules file", path);
    int ok = fscanf(f, "%d %d %d %d %d %d", &P, &Q, &STALL_DRAW, &CHAIN, &MUST_CAPTURE, &WIDTH) == 6;
    if (!ok || P < 2 || P > MAXP || Q < 1 || Q > MAXQ || WIDTH < 1 || WIDTH > 8)
        die("bad rules file header (points <= 25, quiet 1..63, width 1..8)", path);
    for (int i = 0; i <= P; i++)
        if (fscanf(f, "%d", &FIRST[i]) != 1) die("rules file cut short (first)", path);
    int edges = FIRST[P];
    if (edges > 4 * MAXP * 2) die("too many edges", path);
    for (int e = 0; e < edges; e++)
        if (fscanf(f, "%d", &TARGET[e]) != 1) die("rules file cut short (targets)", path);
    for (int e = 0; e < edges * WIDTH; e++)
        if (fscanf(f, "%d", &LAND[e]) != 1) die("rules file cut short (landings)", path);
    fclose(f);
    ALL = (P == 32) ? 0xffffffffu : ((1u << P) - 1);
}

/* -- moves ------------------------------------------------------------------------ */

typedef struct {
    uint8_t from, to;
    u32 cap; /* captured points */
} Move;

typedef struct {
    Move *out;
    int n;
} MoveList;

static void add(MoveList *ml, int from, int to, u32 cap) {
    if (ml->n >= MAXMOVES) die("more than MAXMOVES moves in a position", NULL);
    ml->out[ml->n].from = (uint8_t)from;
    ml->out[ml->n].to = (uint8_t)to;
    ml->out[ml->n].cap = cap;
    ml->n++;
}

/* A chain that has reached a (its origin lifted, the pieces of cap taken off). */
static void extend(MoveList *ml, int from, int a, u32 occupied, u32 foe, u32 cap) {
    int more = 0;
    if (CHAIN == 1) add(ml, from, a, cap);
    for (int e = FIRST[a]; e < FIRST[a + 1]; e++) {
        int b = TARGET[e];
        if (!(foe >> b & 1)) continue;
        for (int j = e * WIDTH; j < (e + 1) * WIDTH; j++) {
            int c = LAND[j];
            if (c == 255) break;
            if (occupied >> c & 1) continue;
            more = 1;
            u32 bb = 1u << b;
            extend(ml, from, c, occupied & ~bb, foe & ~bb, cap | bb);
        }
    }
    if (!more && CHAIN == 2) add(ml, from, a, cap);
}

/* Every legal move of the side owning `mine` (the game not over by count or pieces). */
static int generate(u32 mine, u32 foe, Move *out) {
    MoveList ml = {out, 0};
    u32 occ = mine | foe;
    for (u32 m = mine; m; m &= m - 1) {
        int a = __builtin_ctz(m);
        for (int e = FIRST[a]; e < FIRST[a + 1]; e++) {
            int b = TARGET[e];
            if (!(foe >> b & 1)) continue;
            for (int j = e * WIDTH; j < (e + 1) * WIDTH; j++) {
                int c = LAND[j];
                if (c == 255) break;
                if (occ >> c & 1) continue;
                u32 bb = 1u << b;
                if (CHAIN == 0)
                    add(&ml, a, c, bb);
                else
                    extend(&ml, a, c, (occ & ~(1u << a)) & ~bb, foe & ~bb, bb);
            }
        }
    }
    if (ml.n && MUST_CAPTURE) return ml.n;
    for (u32 m = mine; m; m &= m - 1) {
        int a = __builtin_ctz(m);
        for (int e = FIRST[a]; e < FIRST[a + 1]; e++) {
            int b = TARGET[e];
            if (!(occ >> b & 1)) add(&ml, a, b, 0);
        }
    }
    return ml.n;
}

static int has_move(u32 mine, u32 foe) {
    u32 occ = mine | foe;
    for (u32 m = mine; m; m &= m - 1) {
        int a = __builtin_ctz(m);
        for (int e = FIRST[a]; e < FIRST[a + 1]; e++) {
            int b = TARGET[e];
            if (!(occ >> b & 1)) return 1;
            if (foe >> b & 1)
                for (int j = e * WIDTH; j < (e + 1) * WIDTH; j++) {
                    int c = LAND[j];
                    if (c == 255) break;
                    if (!(occ >> c & 1)) return 1;
                }
        }
    }
    return 0;
}

/* The game's end for the side to move, as in zuni.line: 2 not over, else +1 win, 0
 * draw, -1 loss (no pieces; no move, checked before the count; the quiet count). */
static int status(u32 mine, u32 foe, int quiet) {
    if (!mine) return -1;
    if (!foe) return 1;
    if (!has_move(mine, foe)) return -1;
    if (quiet >= Q) {
        if (STALL_DRAW) return 0;
        int a = __builtin_popcount(mine), b = __builtin_popcount(foe);
        return a > b ? 1 : a < b ? -1 : 0;
    }
    return 2;
}

static u64 perft(u32 mine, u32 foe, int quiet, int depth) {
    if (depth == 0) return 1;
    if (!mine || !foe || quiet >= Q) return 0;
    static Move *pool[256]; /* one move list per depth, made once */
    if (depth > 255) die("perft deeper than 255", NULL);
    if (!pool[depth] && !(pool[depth] = malloc(MAXMOVES * sizeof(Move)))) die("out of memory (perft)", NULL);
    Move *moves = pool[depth];
    int n = generate(mine, foe, moves);
    if (depth == 1) return (u64)n;
    u64 total = 0;
    for (int i = 0; i < n; i++) {
        Move *m = &moves[i];
        u32 moved = (mine & ~(1u << m->from)) | (1u << m->to);
        total += perft(foe & ~m->cap, moved, m->cap ? 0 : quiet + 1, depth - 1);
    }
    return total;
}

/* -- endgame tables ------------------------------------------------------------- */

static u64 BINOM[MAXP + 1][MAXP + 1];

static void init_binom(void) {
    for (int n = 0; n <= MAXP; n++) {
        BINOM[n][0] = 1;
        for (int k = 1; k <= n; k++) BINOM[n][k] = BINOM[n - 1][k - 1] + (k <= n - 1 ? BINOM[n - 1][k] : 0);
    }
}

/* Colex rank of a set of points; of `north` among the points `south` leaves free. */
static inline u64 rank_set(u32 m) {
    u64 r = 0;
    int j = 1;
    for (; m; m &= m - 1, j++) r += BINOM[__builtin_ctz(m)][j];
    return r;
}

static inline u64 rank_free(u32 m, u32 taken) {
    u64 r = 0;
    int j = 1;
    for (; m; m &= m - 1, j++) {
        int p = __builtin_ctz(m);
        r += BINOM[p - __builtin_popcount(taken & ((1u << p) - 1))][j];
    }
    return r;
}

typedef struct {
    int s, n;
    u64 cs, cn, size; /* size = 2 * cs * cn */
    int16_t *top;     /* values with every quiet move left (while building) */
    uint8_t *wdl;     /* 2 bits a value: [left][index], 0 draw, 1 win, 2 loss */
} Table;

static Table TABLES[MAXP + 1][MAXP + 1];
static int TB_PIECES = 0;

static inline u64 tindex(const Table *t, u32 south, u32 north, int turn) {
    return ((u64)turn * t->cs + rank_set(south)) * t->cn + rank_free(north, south);
}

static inline u32 next_set(u32 v) { /* Gosper: the next larger set of as many points */
    u32 t = v | (v - 1);
    return (t + 1) | (((~t & -~t) - 1) >> (__builtin_ctz(v) + 1));
}

static inline u32 deposit(u32 compact, const int *freepts) {
    u32 out = 0;
    for (; compact; compact &= compact - 1) out |= 1u << freepts[__builtin_ctz(compact)];
    return out;
}

static inline int16_t flip(int16_t v) { return (int16_t)(v > 0 ? -v + 1 : v < 0 ? -v - 1 : 0); }

static inline int wdl_of(int v) { return v > 0 ? 1 : v < 0 ? 2 : 0; }

static inline void wdl_set(uint8_t *w, u64 i, int val) { w[i >> 2] |= (uint8_t)(val << ((i & 3) * 2)); }

static inline int wdl_get(const uint8_t *w, u64 i) { return (w[i >> 2] >> ((i & 3) * 2)) & 3; }

typedef struct {
    double seconds, cpu;
    u64 positions, edges;
    int longest;
} BuildInfo;

/* Build table s v n (smaller ones built). dump: write every layer's values there. */
static void build_table(int s, int n, FILE *dump, BuildInfo *info) {
    double t0 = now(), c0 = cpu_now();
    Table *t = &TABLES[s][n];
    t->s = s;
    t->n = n;
    t->cs = BINOM[P][s];
    t->cn = BINOM[P - s][n];
    u64 size = t->size = 2 * t->cs * t->cn;
    int16_t *cap_best = malloc(size * sizeof(int16_t));
    int16_t *count0 = malloc(size * sizeof(int16_t));
    uint8_t *no_move = calloc(size, 1);
    u64 cap_edges = 1 << 20, nedges = 0;
    u32 *child = malloc(cap_edges * sizeof(u32));
    u64 *start = malloc((size + 1) * sizeof(u64));
    u32 *smask = dump ? malloc(size * sizeof(u32)) : NULL;
    u32 *nmask = dump ? malloc(size * sizeof(u32)) : NULL;
    if (!cap_best || !count0 || !no_move || !child || !start || (dump && (!smask || !nmask)))
        die("out of memory building a table", NULL);
    static Move moves[MAXMOVES];
    u64 idx = 0;
    for (int turn = 0; turn < 2; turn++) {
        u32 south = (1u << s) - 1;
        for (u64 rs = 0; rs < t->cs; rs++, south = next_set(south)) {
            int freepts[MAXP], nf = 0;
            for (int p = 0; p < P; p++)
                if (!(south >> p & 1)) freepts[nf++] = p;
            u32 compact = (1u << n) - 1;
            for (u64 rn = 0; rn < t->cn; rn++, compact = next_set(compact), idx++) {
                u32 north = deposit(compact, freepts);
                if (smask) {
                    smask[idx] = south;
                    nmask[idx] = north;
                }
                start[idx] = nedges;
                u32 mine = turn ? north : south, foe = turn ? south : north;
                int k = generate(mine, foe, moves);
                cap_best[idx] = -32767;
                if (!k) {
                    no_move[idx] = 1;
                    continue;
                }
                int cm = turn ? n : s, ct = turn ? s : n;
                count0[idx] = (int16_t)(STALL_DRAW || cm == ct ? 0 : cm > ct ? WIN_T : -WIN_T);
                for (int i = 0; i < k; i++) {
                    Move *m = &moves[i];
                    u32 moved = (mine & ~(1u << m->from)) | (1u << m->to);
                    if (!m->cap) {
                        u32 cs2 = turn ? foe : moved, cn2 = turn ? moved : foe;
                        if (nedges == cap_edges) {
                            cap_edges *= 2;
                            child = realloc(child, cap_edges * sizeof(u32));
                            if (!child) die("out of memory (move graph)", NULL);
                        }
                        child[nedges++] = (u32)tindex(t, cs2, cn2, 1 - turn);
                        continue;
                    }
                    u32 left = foe & ~m->cap;
                    int value;
                    if (!left) {
                        value = WIN_T - 1;
                    } else {
                        u32 s2 = turn ? left : moved, n2 = turn ? moved : left;
                        Table *c = &TABLES[__builtin_popcount(s2)][__builtin_popcount(n2)];
                        if (!c->top) die("internal: a smaller table is missing", NULL);
                        value = flip(c->top[tindex(c, s2, n2, 1 - turn)]);
                    }
                    if (value > cap_best[idx]) cap_best[idx] = (int16_t)value;
                }
            }
        }
    }
    start[size] = nedges;
    if (idx != size) die("internal: table enumeration", NULL);
    int16_t *prev = malloc(size * sizeof(int16_t));
    int16_t *cur = malloc(size * sizeof(int16_t));
    u64 wbytes = (size * (u64)(Q + 1) + 3) / 4;
    t->wdl = calloc(wbytes, 1);
    if (!prev || !cur || !t->wdl) die("out of memory (layers)", NULL);
    for (u64 i = 0; i < size; i++) prev[i] = no_move[i] ? -WIN_T : count0[i];
    int longest = 0;
    for (int left = 0; left <= Q; left++) {
        if (left > 0) {
            for (u64 i = 0; i < size; i++) {
                if (no_move[i]) {
                    cur[i] = -WIN_T;
                    continue;
                }
                int best = cap_best[i];
                for (u64 e = start[i]; e < start[i + 1]; e++) {
                    int v = flip(prev[child[e]]);
                    if (v > best) best = v;
                }
                cur[i] = (int16_t)best;
            }
            int16_t *sw = prev;
            prev = cur;
            cur = sw;
        }
        uint8_t *w = t->wdl;
        u64 base = (u64)left * size;
        for (u64 i = 0; i < size; i++) {
            wdl_set(w, base + i, wdl_of(prev[i]));
            if (prev[i] > 0 && WIN_T - prev[i] > longest) longest = WIN_T - prev[i];
        }
        if (dump) {
            /* record: south, north, turn, left, then the value */
            for (u64 i = 0; i < size; i++) {
                u32 rec[4] = {smask[i], nmask[i], (u32)(i >= size / 2), (u32)left};
                fwrite(rec, sizeof rec, 1, dump);
                fwrite(&prev[i], sizeof(int16_t), 1, dump);
            }
        }
    }
    t->top = prev;
    free(cur);
    free(cap_best);
    free(count0);
    free(no_move);
    free(child);
    free(start);
    free(smask);
    free(nmask);
    info->seconds = now() - t0;
    info->cpu = cpu_now() - c0;
    info->positions = size;
    info->edges = nedges;
    info->longest = longest;
}

static void build_all(int pieces, FILE *dump, int verbose) {
    double c0 = cpu_now(), t0 = now();
    u64 total = 0, bytes = 0;
    for (int tot = 2; tot <= pieces; tot++) {
        double ct = cpu_now();
        u64 pos = 0;
        int longest = 0;
        for (int s = 1; s < tot; s++) {
            BuildInfo info;
            build_table(s, tot - s, dump, &info);
            pos += info.positions;
            bytes += (info.positions * (Q + 1) + 3) / 4;
            if (info.longest > longest) longest = info.longest;
            if (verbose)
                fprintf(stderr, "  %dv%d: %llu positions, %llu quiet edges, %.1f s (%.1f s CPU)\n", s, tot - s,
                        (unsigned long long)info.positions, (unsigned long long)info.edges, info.seconds, info.cpu);
        }
        total += pos;
        if (verbose)
            printf("tables %d pieces: %llu positions, %.1f s CPU, longest win %d moves\n", tot,
                   (unsigned long long)pos, cpu_now() - ct, longest);
        /* The values with every quiet move left are needed while bigger tables are built. */
    }
    TB_PIECES = pieces;
    if (verbose)
        printf("tables up to %d pieces: %llu positions, %.1f MB of win/draw/loss bits, %.1f s CPU (%.1f s wall)\n",
               pieces, (unsigned long long)total, bytes / 1e6, cpu_now() - c0, now() - t0);
    fflush(stdout);
}

static const char TB_MAGIC[8] = "LSTB001";

static void save_tables(const char *path) {
    FILE *f = fopen(path, "wb");
    if (!f) die("cannot write the tables file", path);
    int head[3] = {P, Q, TB_PIECES};
    fwrite(TB_MAGIC, 8, 1, f);
    fwrite(head, sizeof head, 1, f);
    for (int tot = 2; tot <= TB_PIECES; tot++)
        for (int s = 1; s < tot; s++) {
            Table *t = &TABLES[s][tot - s];
            fwrite(t->wdl, 1, (t->size * (Q + 1) + 3) / 4, f);
        }
    if (fclose(f) != 0) die("cannot write the tables file", path);
}

static void load_tables(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) die("cannot open the tables file", path);
    char magic[8];
    int head[3];
    if (fread(magic, 8, 1, f) != 1 || memcmp(magic, TB_MAGIC, 8) || fread(head, sizeof head, 1, f) != 1)
        die("not a tables file of this program", path);
    if (head[0] != P || head[1] != Q) die("the tables file is of other rules", path);
    TB_PIECES = head[2];
    for (int tot = 2; tot <= TB_PIECES; tot++)
        for (int s = 1; s < tot; s++) {
            Table *t = &TABLES[s][tot - s];
            t->s = s;
            t->n = tot - s;
            t->cs = BINOM[P][s];
            t->cn = BINOM[P - s][tot - s];
            t->size = 2 * t->cs * t->cn;
            u64 bytes = (t->size * (Q + 1) + 3) / 4;
            t->wdl = malloc(bytes);
            if (!t->wdl) die("out of memory loading the tables", path);
            if (fread(t->wdl, 1, bytes, f) != bytes) die("the tables file is cut short", path);
        }
    fclose(f);
}

/* Win/draw/loss (+1, 0, -1) for the side to move, or 2 when no table covers it. */
static inline int tb_probe(u32 south, u32 north, int turn, int quiet) {
    int s = __builtin_popcount(south), n = __builtin_popcount(north);
    if (s + n > TB_PIECES || !s || !n || quiet > Q) return 2;
    Table *t = &TABLES[s][n];
    int w = wdl_get(t->wdl, (u64)(Q - quiet) * t->size + tindex(t, south, north, turn));
    return w == 1 ? 1 : w == 2 ? -1 : 0;
}

/* -- df-pn ----------------------------------------------------------------------- */

#define INF 0x7fffffffu
typedef struct {
    u64 key; /* bits 0..56 the position, 57..63 log2 of the work */
    u32 pn, dn;
} Entry;

static Entry *TT;
static u64 TT_MASK; /* buckets - 1; a bucket is 4 entries */
static u64 NODES, NODE_LIMIT;
static double DEADLINE, PROGRESS_EVERY, NEXT_PROGRESS, T_START;
static int TEAM, STOPPED;
static double EPS = 0.25;
static int INIT = 1, INIT_K = 4; /* new nodes' numbers: 0 one, 1 mobility, 2 material, 3 both */
static u32 ROOT_PN = 1, ROOT_DN = 1;
static u64 TT_STORES, TT_HITS;
static int MAXDEPTH_SEEN;

#define KEY_MASK ((1ull << 57) - 1)

static inline u64 make_key(u32 south, u32 north, int turn, int quiet) {
    /* 25 + 25 + 1 + 6 = 57 bits: the position itself, exactly */
    return (u64)south | ((u64)north << 25) | ((u64)turn << 50) | ((u64)quiet << 51);
}

static inline u64 hash_key(u64 k) {
    k ^= k >> 31;
    k *= 0x7fb5d329728ea185ull;
    k ^= k >> 27;
    k *= 0x81dadef4bc2dd44dull;
    k ^= k >> 33;
    return k;
}

static int tt_lookup(u64 key, u32 *pn, u32 *dn) {
    Entry *b = &TT[(hash_key(key) & TT_MASK) * 4];
    for (int i = 0; i < 4; i++)
        if ((b[i].key & KEY_MASK) == key) {
            *pn = b[i].pn;
            *dn = b[i].dn;
            TT_HITS++;
            return 1;
        }
    return 0;
}

static void tt_store(u64 key, u32 pn, u32 dn, u64 work) {
    Entry *b = &TT[(hash_key(key) & TT_MASK) * 4];
    int lg = 0;
    while (work > 1 && lg < 126) {
        work >>= 1;
        lg++;
    }
    if (pn == 0 || dn == 0) lg += 1; /* settled: a little more precious */
    int victim = -1, vwork = 1 << 30;
    for (int i = 0; i < 4; i++) {
        if ((b[i].key & KEY_MASK) == key || b[i].key == 0) {
            victim = i;
            break;
        }
        int w = (int)(b[i].key >> 57);
        if (w < vwork) {
            vwork = w;
            victim = i;
        }
    }
    TT_STORES++;
    b[victim].key = key | ((u64)lg << 57);
    b[victim].pn = pn;
    b[victim].dn = dn;
}

typedef struct {
    u64 key;
    u32 south, north;
    u32 pn, dn;
    int terminal;
} Child;

static Child *CHILD_POOL;
static int MAX_DEPTH = 4096;

static inline u32 sat(u64 v) { return v >= INF ? INF : (u32)v; }

/* Children of a position: numbers from the rules, the tables, the TT, or mobility. */
static int children_of(u32 south, u32 north, int turn, int quiet, Child *out) {
    static Move moves[MAXMOVES], tmp[MAXMOVES]; /* not reentrant: children_of never recurses */
    u32 mine = turn ? north : south, foe = turn ? south : north;
    int k = generate(mine, foe, moves), n = 0;
    for (int i = 0; i < k; i++) {
        Move *m = &moves[i];
        u32 moved = (mine & ~(1u << m->from)) | (1u << m->to);
        u32 left = foe & ~m->cap;
        u32 s2 = turn ? left : moved, n2 = turn ? moved : left;
        int q2 = m->cap ? 0 : quiet + 1;
        u64 key = make_key(s2, n2, 1 - turn, q2);
        int dup = 0;
        for (int j = 0; j < n; j++)
            if (out[j].key == key) dup = 1;
        if (dup) continue;
        if (n >= MAXCHILD) die("more than MAXCHILD positions after a move", NULL);
        Child *c = &out[n++];
        c->key = key;
        c->south = s2;
        c->north = n2;
        c->terminal = 0;
        int child_turn = 1 - turn;
        int is_or = child_turn == TEAM;
        u32 cm = child_turn ? n2 : s2, cf = child_turn ? s2 : n2;
        int st = status(cm, cf, q2);
        if (st == 2) st = tb_probe(s2, n2, child_turn, q2);
        if (st != 2) {
            /* win for TEAM? */
            int team_wins = is_or ? st == 1 : st == -1;
            c->terminal = 1;
            c->pn = team_wins ? 0 : INF;
            c->dn = team_wins ? INF : 0;
            continue;
        }
        if (tt_lookup(key, &c->pn, &c->dn)) continue;
        if (INIT == 0) {
            c->pn = c->dn = 1;
        } else if (INIT == 1) {
            /* Mobility (Allis): many moves make a node hard to refute (OR) or prove (AND). */
            int mob = generate(cm, cf, tmp);
            if (is_or) {
                c->pn = 1;
                c->dn = mob ? (u32)mob : 1;
            } else {
                c->pn = mob ? (u32)mob : 1;
                c->dn = 1;
            }
        } else {
            /* Material and the count (only steers the search): a lead wins at the
             * count, the sooner the count comes the cheaper that is to prove; the side
             * behind must win material back first. */
            u32 tm = TEAM ? n2 : s2, op = TEAM ? s2 : n2;
            int d = __builtin_popcount(tm) - __builtin_popcount(op);
            int r = Q - q2;
            if (d > 0) {
                c->pn = 1 + (u32)(r * INIT_K / Q);
                c->dn = (u32)(2 + 4 * d);
            } else if (d == 0) {
                c->pn = (u32)(2 + INIT_K);
                c->dn = 1 + (u32)(r * INIT_K / Q);
            } else {
                c->pn = (u32)(2 + 4 * -d + INIT_K);
                c->dn = 1;
            }
            if (INIT == 3) { /* and mobility at AND nodes */
                int mob = generate(cm, cf, tmp);
                if (is_or) c->dn += (u32)mob / 2;
                else c->pn += (u32)mob / 2;
            }
        }
    }
    return n;
}

static void progress(void) {
    double t = now();
    fprintf(stderr, "  %llu nodes, %.0f s (%.0f nodes/s): root proof %u, disproof %u, depth %d\n",
            (unsigned long long)NODES, t - T_START, NODES / (t - T_START + 1e-9), ROOT_PN, ROOT_DN, MAXDEPTH_SEEN);
    NEXT_PROGRESS = t + PROGRESS_EVERY;
}

/* MID of df-pn: search the position until its numbers reach a threshold. */
static void mid(u32 south, u32 north, int turn, int quiet, u32 thpn, u32 thdn, int depth, u32 *out_pn,
                u32 *out_dn) {
    NODES++;
    if (depth > MAXDEPTH_SEEN) MAXDEPTH_SEEN = depth;
    if ((NODES & 0xffff) == 0) {
        double t = now();
        if ((DEADLINE > 0 && t > DEADLINE) || (NODE_LIMIT && NODES >= NODE_LIMIT)) STOPPED = 1;
        if (PROGRESS_EVERY > 0 && t >= NEXT_PROGRESS) progress();
    }
    if (depth >= MAX_DEPTH - 1) die("search deeper than the stack of children", NULL);
    u64 nodes0 = NODES;
    Child *ch = &CHILD_POOL[(u64)depth * MAXCHILD];
    int k = children_of(south, north, turn, quiet, ch);
    int is_or = turn == TEAM;
    u64 key = make_key(south, north, turn, quiet);
    u32 pn, dn;
    for (;;) {
        u64 sum = 0;
        u32 mn = INF;
        int best = -1;
        u32 b1 = INF, b2 = INF;
        for (int i = 0; i < k; i++) {
            u32 mine_n = is_or ? ch[i].pn : ch[i].dn; /* the number minimised */
            u32 other = is_or ? ch[i].dn : ch[i].pn;  /* the number summed */
            sum += other;
            if (mine_n < b1) {
                b2 = b1;
                b1 = mine_n;
                best = i;
            } else if (mine_n < b2) {
                b2 = mine_n;
            }
            (void)mn;
        }
        if (k == 0) die("internal: a position with no moves reached mid", NULL);
        if (is_or) {
            pn = b1;
            dn = sat(sum);
        } else {
            dn = b1;
            pn = sat(sum);
        }
        if (depth == 0) {
            ROOT_PN = pn;
            ROOT_DN = dn;
        }
        if (pn >= thpn || dn >= thdn || pn == 0 || dn == 0 || STOPPED) break;
        Child *c = &ch[best];
        u32 cthpn, cthdn;
        u64 second = b2 >= INF ? INF : (u64)(b2 * (1.0 + EPS)) + 1;
        if (is_or) {
            cthpn = sat(second < thpn ? second : thpn);
            cthdn = sat((u64)thdn - dn + c->dn);
        } else {
            cthdn = sat(second < thdn ? second : thdn);
            cthpn = sat((u64)thpn - pn + c->pn);
        }
        int q2 = (__builtin_popcount(c->south) + __builtin_popcount(c->north) ==
                  __builtin_popcount(south) + __builtin_popcount(north))
                     ? quiet + 1
                     : 0;
        mid(c->south, c->north, 1 - turn, q2, cthpn, cthdn, depth + 1, &c->pn, &c->dn);
    }
    tt_store(key, pn, dn, NODES - nodes0 + 1);
    *out_pn = pn;
    *out_dn = dn;
}

/* -- the proof's book: the winner's moves in the proof tree, a few plies deep ------ */

static FILE *BOOK;
static int BOOK_PLIES;
static u64 BOOK_LINES;

/* Prove again (no limits) a position whose entry the TT lost. */
static void settle(u32 south, u32 north, int turn, int quiet, int depth, u32 *pn, u32 *dn) {
    int saved = STOPPED;
    u64 saved_limit = NODE_LIMIT;
    double saved_deadline = DEADLINE;
    NODE_LIMIT = 0;
    DEADLINE = 0;
    STOPPED = 0;
    mid(south, north, turn, quiet, INF, INF, depth, pn, dn);
    STOPPED = saved;
    NODE_LIMIT = saved_limit;
    DEADLINE = saved_deadline;
}

/* Positions the book has been through, with the fewest plies they were reached in. */
static u64 *SEEN_KEY;
static int *SEEN_PLY;
static u64 SEEN_MASK, SEEN_COUNT;

static int seen_before(u64 key, int ply) {
    if (!SEEN_KEY || SEEN_COUNT * 2 > SEEN_MASK) { /* grow: keep it at most half full */
        u64 old_mask = SEEN_MASK;
        u64 *ok = SEEN_KEY;
        int *op = SEEN_PLY;
        SEEN_MASK = old_mask ? old_mask * 2 + 1 : (1 << 16) - 1;
        SEEN_KEY = calloc(SEEN_MASK + 1, sizeof(u64));
        SEEN_PLY = calloc(SEEN_MASK + 1, sizeof(int));
        if (!SEEN_KEY || !SEEN_PLY) die("out of memory (book)", NULL);
        for (u64 i = 0; ok && i <= old_mask; i++)
            if (ok[i]) {
                u64 j = hash_key(ok[i]) & SEEN_MASK;
                while (SEEN_KEY[j]) j = (j + 1) & SEEN_MASK;
                SEEN_KEY[j] = ok[i];
                SEEN_PLY[j] = op[i];
            }
        free(ok);
        free(op);
    }
    u64 j = hash_key(key) & SEEN_MASK;
    while (SEEN_KEY[j] && SEEN_KEY[j] != key) j = (j + 1) & SEEN_MASK;
    if (SEEN_KEY[j] == key) {
        if (SEEN_PLY[j] <= ply) return 1;
        SEEN_PLY[j] = ply;
        return 0;
    }
    SEEN_KEY[j] = key;
    SEEN_PLY[j] = ply;
    SEEN_COUNT++;
    return 0;
}

static u64 BOOK_LEAVES; /* positions the rules or the tables settle, at the book's edge */

static void write_book(u32 south, u32 north, int turn, int quiet, int ply, int depth) {
    if (ply >= BOOK_PLIES) return;
    if (seen_before(make_key(south, north, turn, quiet), ply)) return;
    Child *ch = &CHILD_POOL[(u64)depth * MAXCHILD];
    int k = children_of(south, north, turn, quiet, ch);
    int is_or = turn == TEAM;
    int total = __builtin_popcount(south) + __builtin_popcount(north);
    if (is_or) {
        int pick = -1;
        for (int i = 0; i < k && pick < 0; i++) /* a move the rules or tables settle first */
            if (ch[i].pn == 0 && ch[i].terminal) pick = i;
        for (int i = 0; i < k && pick < 0; i++)
            if (ch[i].pn == 0) pick = i;
        if (pick < 0) {
            /* lost from the TT: prove each child again until one is proved */
            for (int i = 0; i < k && pick < 0; i++) {
                if (ch[i].terminal) continue;
                int q2 = __builtin_popcount(ch[i].south) + __builtin_popcount(ch[i].north) == total ? quiet + 1 : 0;
                settle(ch[i].south, ch[i].north, 1 - turn, q2, depth + 1, &ch[i].pn, &ch[i].dn);
                if (ch[i].pn == 0) pick = i;
            }
        }
        if (pick < 0) die("internal: no proved move at a node of the proof", NULL);
        Child c = ch[pick];
        fprintf(BOOK, "%u %u %d %d %u %u\n", south, north, turn, quiet, c.south, c.north);
        BOOK_LINES++;
        if (c.terminal) BOOK_LEAVES++;
        if (!c.terminal) {
            int q2 = __builtin_popcount(c.south) + __builtin_popcount(c.north) == total ? quiet + 1 : 0;
            write_book(c.south, c.north, 1 - turn, q2, ply + 1, depth + 1);
        }
    } else {
        /* copy: the recursion reuses deeper pool slots only */
        for (int i = 0; i < k; i++) {
            Child c = ch[i];
            if (c.terminal && c.pn != 0) die("internal: a reply of the proof refutes it", NULL);
            if (c.terminal) {
                BOOK_LEAVES++;
                continue;
            }
            int q2 = __builtin_popcount(c.south) + __builtin_popcount(c.north) == total ? quiet + 1 : 0;
            write_book(c.south, c.north, 1 - turn, q2, ply + 1, depth + 1);
        }
    }
}

/* The principal line: the winner's proved move, the reply with the largest work. */
static void print_line(u32 south, u32 north, int turn, int quiet, int plies) {
    printf("line");
    for (int ply = 0; ply < plies; ply++) {
        Child *ch = &CHILD_POOL[0];
        int k = children_of(south, north, turn, quiet, ch);
        if (!k) break;
        int total = __builtin_popcount(south) + __builtin_popcount(north);
        int pick = -1;
        if (turn == TEAM) {
            for (int i = 0; i < k && pick < 0; i++)
                if (ch[i].pn == 0) pick = i;
        } else {
            /* the reply whose proof was longest: the one with the most work in the TT */
            int bestw = -1;
            for (int i = 0; i < k; i++) {
                if (ch[i].terminal) continue;
                Entry *b = &TT[(hash_key(ch[i].key) & TT_MASK) * 4];
                for (int j = 0; j < 4; j++)
                    if ((b[j].key & KEY_MASK) == ch[i].key && (int)(b[j].key >> 57) > bestw) {
                        bestw = (int)(b[j].key >> 57);
                        pick = i;
                    }
            }
            if (pick < 0)
                for (int i = 0; i < k && pick < 0; i++) pick = i;
        }
        if (pick < 0) break;
        Child c = ch[pick];
        printf(" %u:%u", c.south, c.north);
        if (c.terminal) break;
        quiet = __builtin_popcount(c.south) + __builtin_popcount(c.north) == total ? quiet + 1 : 0;
        south = c.south;
        north = c.north;
        turn = 1 - turn;
    }
    printf("\n");
}

static u32 parse_u32(const char *s) { return (u32)strtoul(s, NULL, 0); }

int main(int argc, char **argv) {
    if (argc < 3) die("usage: linesolve RULES perft|tbdump|tbbuild|solve ...", NULL);
    init_binom();
    read_rules(argv[1]);
    const char *cmd = argv[2];
    if (!strcmp(cmd, "perft")) {
        if (argc != 8) die("usage: perft SOUTH NORTH TURN QUIET DEPTH", NULL);
        u32 s = parse_u32(argv[3]), n = parse_u32(argv[4]);
        int turn = atoi(argv[5]), quiet = atoi(argv[6]), depth = atoi(argv[7]);
        double t0 = now();
        u64 r = turn ? perft(n, s, quiet, depth) : perft(s, n, quiet, depth);
        printf("%llu\n", (unsigned long long)r);
        fprintf(stderr, "perft %d: %.3f s\n", depth, now() - t0);
        return 0;
    }
    if (!strcmp(cmd, "tbdump") || !strcmp(cmd, "tbbuild")) {
        if (argc != 5) die("usage: tbdump|tbbuild PIECES OUT", NULL);
        int pieces = atoi(argv[3]);
        if (pieces < 2 || pieces > 8) die("PIECES must be 2..8", argv[3]);
        int dumping = !strcmp(cmd, "tbdump");
        FILE *dump = NULL;
        if (dumping) {
            dump = fopen(argv[4], "wb");
            if (!dump) die("cannot write", argv[4]);
        }
        build_all(pieces, dump, 1);
        if (dumping) {
            if (fclose(dump) != 0) die("cannot write", argv[4]);
        } else {
            save_tables(argv[4]);
        }
        return 0;
    }
    if (!strcmp(cmd, "probe")) {
        /* lines "SOUTH NORTH TURN QUIET" on stdin: +1 / 0 / -1 for the side to move, 2 uncovered */
        if (argc != 4) die("usage: probe TABLES < positions", NULL);
        load_tables(argv[3]);
        unsigned s, n;
        int turn, quiet;
        while (scanf("%u %u %d %d", &s, &n, &turn, &quiet) == 4) {
            if (quiet < 0 || quiet > Q || (turn != 0 && turn != 1)) die("bad position on stdin", NULL);
            printf("%d\n", tb_probe(s, n, turn, quiet));
        }
        return 0;
    }
    if (!strcmp(cmd, "solve")) {
        if (argc < 8) die("usage: solve TEAM SOUTH NORTH TURN QUIET [options]", NULL);
        TEAM = atoi(argv[3]);
        u32 s = parse_u32(argv[4]), n = parse_u32(argv[5]);
        int turn = atoi(argv[6]), quiet = atoi(argv[7]);
        double seconds = 0, tt_mb = 1024;
        const char *tbfile = NULL, *bookfile = NULL;
        BOOK_PLIES = 0;
        int line_plies = 40;
        for (int i = 8; i < argc; i++) {
            const char *o = argv[i];
            const char *v = i + 1 < argc ? argv[i + 1] : NULL;
            if (!v) die("option without a value", o);
            if (!strcmp(o, "--tb")) tbfile = v;
            else if (!strcmp(o, "--nodes")) NODE_LIMIT = strtoull(v, NULL, 0);
            else if (!strcmp(o, "--seconds")) seconds = atof(v);
            else if (!strcmp(o, "--tt-mb")) tt_mb = atof(v);
            else if (!strcmp(o, "--eps")) EPS = atof(v);
            else if (!strcmp(o, "--init")) INIT = atoi(v);
            else if (!strcmp(o, "--init-k")) INIT_K = atoi(v);
            else if (!strcmp(o, "--book")) bookfile = v;
            else if (!strcmp(o, "--book-plies")) BOOK_PLIES = atoi(v);
            else if (!strcmp(o, "--line-plies")) line_plies = atoi(v);
            else if (!strcmp(o, "--progress")) PROGRESS_EVERY = atof(v);
            else die("unknown option", o);
            i++;
        }
        double tl0 = now(), tc0 = cpu_now();
        if (tbfile) load_tables(tbfile);
        double tload = now() - tl0, tload_cpu = cpu_now() - tc0;
        u64 buckets = 1;
        while ((buckets * 2) * 4 * sizeof(Entry) <= tt_mb * 1e6) buckets *= 2;
        TT = calloc(buckets * 4, sizeof(Entry));
        CHILD_POOL = malloc((u64)MAX_DEPTH * MAXCHILD * sizeof(Child));
        if (!TT || !CHILD_POOL) die("out of memory (transposition table)", NULL);
        TT_MASK = buckets - 1;
        T_START = now();
        DEADLINE = seconds > 0 ? T_START + seconds : 0;
        NEXT_PROGRESS = T_START + PROGRESS_EVERY;
        u32 mine = turn ? n : s, foe = turn ? s : n;
        int st = status(mine, foe, quiet);
        if (st == 2) st = tb_probe(s, n, turn, quiet);
        u32 pn = 1, dn = 1;
        if (st != 2) {
            int team_wins = turn == TEAM ? st == 1 : st == -1;
            pn = team_wins ? 0 : INF;
            dn = team_wins ? INF : 0;
        } else {
            mid(s, n, turn, quiet, INF, INF, 0, &pn, &dn);
        }
        double secs = now() - T_START;
        const char *res = pn == 0 ? "proved" : dn == 0 ? "disproved" : "unsettled";
        printf("result %s\n", res);
        printf("proof %u\ndisproof %u\nnodes %llu\nseconds %.2f\ncpu %.2f\ntb_pieces %d\ntb_load %.2f\n", pn, dn,
               (unsigned long long)NODES, secs, cpu_now() - tc0, TB_PIECES, tload);
        printf("tb_load_cpu %.2f\nsearch_cpu %.2f\n", tload_cpu, cpu_now() - tc0 - tload_cpu);
        printf("tt_mb %.0f\ntt_stores %llu\ndepth %d\n", buckets * 4 * sizeof(Entry) / 1e6,
               (unsigned long long)TT_STORES, MAXDEPTH_SEEN);
        if (pn == 0 && st == 2) {
            print_line(s, n, turn, quiet, line_plies);
            if (bookfile && BOOK_PLIES > 0) {
                BOOK = fopen(bookfile, "w");
                if (!BOOK) die("cannot write", bookfile);
                write_book(s, n, turn, quiet, 0, 0);
                fclose(BOOK);
                printf("book %llu\nbook_leaves %llu\nbook_positions %llu\n", (unsigned long long)BOOK_LINES,
                       (unsigned long long)BOOK_LEAVES, (unsigned long long)SEEN_COUNT);
            }
        }
        fflush(stdout);
        return 0;
    }
    die("unknown command", cmd);
    return 2;
}
