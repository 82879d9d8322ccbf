-- Per DBM point and period (Uyeda et al. §3.1): the period's partition, at
-- most m buckets in time order, each `[start, end, bytes, merged, sumsq,
-- max, min, culprit flow, culprit bytes]` with its span in ns from `t_ns`
-- (JSON); partitioned by day as `synopsis`. `peak_bps` is the densest bucket's rate, which bounds the rate of
-- every interval at every time scale: the burst query reads no row below
-- the asked rate. A rolled-up hour (§4) is one row of `periods` periods,
-- merged down to m buckets, spanning `span_ns`.
CREATE TABLE dbm_partition (
    point    BIGINT NOT NULL REFERENCES point (id),
    t_ns     BIGINT NOT NULL,
    seq      BIGINT NOT NULL,
    periods  BIGINT NOT NULL,
    span_ns  BIGINT NOT NULL,
    packets  BIGINT NOT NULL,
    bytes    BIGINT NOT NULL,
    peak_bps DOUBLE PRECISION NOT NULL,
    buckets  TEXT NOT NULL,
    PRIMARY KEY (point, t_ns)
) PARTITION BY RANGE (t_ns);
