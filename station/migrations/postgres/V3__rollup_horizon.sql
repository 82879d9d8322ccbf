-- Roll-up (bandwidth paper §4, "Long-term archival"): a bandwidth row may
-- stand for several periods collapsed into one (an hour of EXPB periods,
-- keeping the maximum and standard deviation at every original scale):
-- `periods` of them, starting at `t_ns`.
ALTER TABLE bandwidth ADD COLUMN periods BIGINT NOT NULL DEFAULT 1;

-- Per point: epochs starting before `until_ns` are rolled up (their raw
-- synopses may be dropped), so the station takes no more of them.
CREATE TABLE horizon (
    point    BIGINT PRIMARY KEY REFERENCES point (id),
    until_ns BIGINT NOT NULL
);
