-- Parcel identity, kept feature counts and the property-value index are created in 0004.
SELECT 1;
