-- What it cost to read an epoch over a board's serial line, when the
-- station took it from one (`netmeas board read --station`): register
-- requests, attempts repeated, and failed attempts by cause (a CRC failed
-- on the line, or a response was missing or cut). NULL for an epoch that
-- came from a file or a simulator. The point's health sums them.
ALTER TABLE synopsis ADD COLUMN link_requests BIGINT;
ALTER TABLE synopsis ADD COLUMN link_retries BIGINT;
ALTER TABLE synopsis ADD COLUMN link_crc_errors BIGINT;
ALTER TABLE synopsis ADD COLUMN link_lost_responses BIGINT;
