DROP TABLE threads;
