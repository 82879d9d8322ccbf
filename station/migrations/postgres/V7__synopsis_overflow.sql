-- Whether an epoch's synopsis carries its core's sticky overflow or
-- saturation flag (LDA and RDA counters, the fridge's histograms, EXPB and
-- DBM sums): the point's health counts them.
ALTER TABLE synopsis ADD COLUMN overflow BIGINT NOT NULL DEFAULT 0;
