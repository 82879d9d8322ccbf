-- Per fridge point and epoch (fridge paper §6.2): the frozen histograms,
-- 32 log2 delay bins per fridge, each `[samples, Σ factor (8 fractional
-- bits), Σ factor²]` (JSON), summed without wrapping over a rolled-up hour
-- of `periods` epochs (`overflow` set when a sum saturated or the core's
-- histograms wrapped); partitioned by day as `synopsis`.
CREATE TABLE delay_hist (
    point    BIGINT NOT NULL REFERENCES point (id),
    t_ns     BIGINT NOT NULL,
    seq      BIGINT NOT NULL,
    periods  BIGINT NOT NULL,
    samples  BIGINT NOT NULL,
    overflow BIGINT NOT NULL,
    bins     TEXT NOT NULL,
    PRIMARY KEY (point, t_ns)
) PARTITION BY RANGE (t_ns);
