// Package meridian is the Go client of Meridian, the DNS, geospatial, digital twin and webhook
// platform: DNS zones and records, cadastre parcels and OGC API Features, DEM processing,
// earth observation (STAC, NDVI and other indices, zonal statistics), point clouds, digital
// twins with live telemetry, and signed webhooks.
//
// Every operation of the server's OpenAPI document is a method of Client, generated from the
// document (operations_gen.go, types_gen.go): ListZones, CreateRecord, ListParcels, SubmitProcess,
// ... Methods take a context, the path parameters, a parameter struct for the query and
// header parameters (ListZonesParams, ...; nil for none), and a body; an operation with a body
// also has a WithBody variant that streams any io.Reader. JSON answers are decoded into the
// document's types; file answers come back as an *http.Response to read and close.
//
// Over them, this package has what an application would otherwise write itself:
//
//   - authentication with an API key, optionally traded for access tokens that are renewed
//     before they expire (WithAPIKey, WithAccessTokens, Client.AccessToken);
//   - iterators over every paged list, following the `next` links (Client.AllParcels,
//     Client.AllZones, Client.SearchEoItems, Iterate, IterateWith, ...);
//   - retries of 429 and 503 answers honouring Retry-After (RetryPolicy, WithoutRetries);
//   - typed errors: every error answer is a *ProblemError with its code, status and the JSON
//     pointers of the fields at fault, usable with errors.As and errors.Is;
//   - streaming uploads (Multipart, Client.UploadDEM, Client.UploadEoScene) and downloads with
//     HTTP ranges (Client.Download, Client.ReadRange, Client.SavePointCloud);
//   - Client.WaitForJob, which polls a job with a progress callback;
//   - VerifyWebhook for both signature formats of deliveries;
//   - Client.StreamTelemetry, a twin's live readings over a WebSocket that resumes after a
//     dropped connection without losing or repeating readings.
//
// The package uses the standard library only.
package meridian
