-- Measurement points as the station config names them; a point's core
-- config (canonical JSON) is fixed once stored.
CREATE TABLE point (
    id        INTEGER PRIMARY KEY,
    name      TEXT NOT NULL UNIQUE,
    router    TEXT NOT NULL,
    link      TEXT NOT NULL,
    direction TEXT NOT NULL,
    core      TEXT NOT NULL,
    config    TEXT NOT NULL,
    epoch_ns  BIGINT NOT NULL,
    start_ns  BIGINT NOT NULL,
    tick_ns   DOUBLE PRECISION NOT NULL
);

-- Segments: a sender point and a receiver point whose epochs pair (LDA §III).
CREATE TABLE segment (
    id       INTEGER PRIMARY KEY,
    name     TEXT NOT NULL UNIQUE,
    sender   BIGINT NOT NULL REFERENCES point (id),
    receiver BIGINT NOT NULL REFERENCES point (id)
);

-- Every epoch's raw synopsis, as the point reported it (canonical JSON).
CREATE TABLE synopsis (
    point BIGINT NOT NULL REFERENCES point (id),
    seq   BIGINT NOT NULL,
    t_ns  BIGINT NOT NULL,
    body  TEXT NOT NULL,
    PRIMARY KEY (point, seq, t_ns)
);

-- One row per paired epoch of a latency segment: the §III-D/E estimates, or
-- why the pair gave none (`unusable`).
CREATE TABLE latency (
    segment    BIGINT NOT NULL REFERENCES segment (id),
    seq        BIGINT NOT NULL,
    t_ns       BIGINT NOT NULL,
    sent       BIGINT NOT NULL,
    received   BIGINT NOT NULL,
    loss       DOUBLE PRECISION,
    samples    BIGINT NOT NULL,
    mean_ns    DOUBLE PRECISION,
    std_ns     DOUBLE PRECISION,
    bound98_ns DOUBLE PRECISION,
    unusable   TEXT,
    PRIMARY KEY (segment, seq, t_ns)
);
CREATE INDEX latency_time ON latency (t_ns);

-- Epochs refused at ingest: logged with the point and epoch, never stored.
CREATE TABLE rejection (
    id       INTEGER PRIMARY KEY,
    at_ns    BIGINT NOT NULL,
    point    TEXT NOT NULL,
    seq      BIGINT,
    source   TEXT NOT NULL,
    reason   TEXT NOT NULL
);
