-- The kept extent of a collection (feature_collections.extent) is created in 0004.
SELECT 1;
