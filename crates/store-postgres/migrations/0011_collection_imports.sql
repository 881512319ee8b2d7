-- Collections being imported (feature_collections.importing) are created in 0004.
SELECT 1;
