DROP TABLE counters;
