-- seed 004's log store: the AWS CDN (aws) and Cloudflare edge (cf) records the sample table
-- function query_ck_awscdn_cf_log_tudf (sample-data/udf/) asks for a window's IPs
DROP TABLE IF EXISTS cdn_log;
CREATE TABLE cdn_log (log_time timestamp, ip text, source text, domain text, status int);
INSERT INTO cdn_log VALUES
  ('2024-05-01 10:00:20', '10.0.0.1', 'aws', 'cdn.example.com', 200),
  ('2024-05-01 10:00:40', '10.0.0.1', 'cf', 'edge.example.com', 200),
  ('2024-05-01 10:01:10', '10.0.0.2', 'aws', 'cdn.example.com', 503),
  ('2024-05-01 10:01:30', '10.0.0.2', 'cf', 'edge.example.com', 200),
  ('2024-05-01 10:02:00', '10.0.0.3', 'cf', 'edge.example.com', 404),
  ('2024-05-01 10:02:59', '10.0.0.4', 'aws', 'cdn.example.com', 200),
  ('2024-05-01 10:03:00', '10.0.0.4', 'cf', 'edge.example.com', 500),
  ('2024-05-01 10:03:30', '10.0.0.5', 'aws', 'cdn.example.com', 403),
  ('2024-05-01 10:04:10', '10.0.0.5', 'cf', 'edge.example.com', 502),
  ('2024-05-01 10:05:00', '10.0.0.6', 'aws', 'cdn.example.com', 200),
  ('2024-05-01 10:05:20', '10.0.0.6', 'cf', 'edge.example.com', 200),
  ('2024-05-01 10:05:40', '10.0.0.6', 'other', 'edge.example.com', 500);
