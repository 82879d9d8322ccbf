-- Per point, epoch and time scale: the bandwidth statistics of a point
-- that measures them (EXPB, Uyeda et al. §3.2, one row per scale Δ_j), in
-- bits/s, with the start of the interval of the maximum and its culprit flow
-- (§3.3); partitioned by day as `synopsis`.
CREATE TABLE bandwidth (
    point     BIGINT NOT NULL REFERENCES point (id),
    scale_ns  BIGINT NOT NULL,
    t_ns      BIGINT NOT NULL,
    seq       BIGINT NOT NULL,
    intervals BIGINT NOT NULL,
    mean_bps  DOUBLE PRECISION NOT NULL,
    std_bps   DOUBLE PRECISION NOT NULL,
    max_bps   DOUBLE PRECISION NOT NULL,
    max_t_ns  BIGINT NOT NULL,
    culprit   BIGINT NOT NULL,
    PRIMARY KEY (point, scale_ns, t_ns)
) PARTITION BY RANGE (t_ns);
