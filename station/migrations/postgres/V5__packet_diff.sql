-- Per paired epoch of an RDA segment (Fu et al. §III, §V Algorithm 1): the
-- packet IDs only the sender saw (`lost`) and only the receiver saw
-- (`reordered`, sent in an earlier interval), as JSON arrays; `complete`
-- is 1 when the peeling decode emptied every bucket (the lists are then the
-- whole set difference), else the lists are partial and
-- `residual_buckets` still hold differences. Partitioned by day as `synopsis`.
CREATE TABLE packet_diff (
    segment          BIGINT NOT NULL REFERENCES segment (id),
    seq              BIGINT NOT NULL,
    t_ns             BIGINT NOT NULL,
    complete         BIGINT NOT NULL,
    residual_buckets BIGINT NOT NULL,
    lost             TEXT NOT NULL,
    reordered        TEXT NOT NULL,
    PRIMARY KEY (segment, seq, t_ns)
) PARTITION BY RANGE (t_ns);
