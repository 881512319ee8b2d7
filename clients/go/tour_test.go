package meridian

// The tour of the README, against the real server: sign-up, DNS (answered by dig), parcels
// through the paging iterator, a DEM job waited for, an EO scene and NDVI with parcel zones,
// a point cloud classified and downloaded as COPC, a twin's telemetry over the WebSocket with
// resumption, a signed webhook delivery verified, a 422 and a 429 as typed errors.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestTour(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	// Sign up, then trade the key for access tokens that the client renews itself.
	c, created := signUp(t, ctx, mainServer, WithAccessTokens())
	if !strings.HasPrefix(created.APIKey, "mrd_") || !strings.HasPrefix(created.Account.ID, "acct_") {
		t.Fatalf("sign-up answer: %+v", created)
	}
	acct, err := c.GetAccount(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if acct.ID != created.Account.ID {
		t.Fatalf("account %s, want %s", acct.ID, created.Account.ID)
	}
	if exp := c.TokenExpiry(); exp.IsZero() || time.Until(exp) < time.Minute {
		t.Fatalf("the client holds no fresh access token (renewal at %v)", exp)
	}

	// The areas run side by side; the group returns once they all have.
	t.Run("areas", func(t *testing.T) {
		t.Run("dns", func(t *testing.T) { t.Parallel(); tourDNS(ctx, t, c) })
		t.Run("parcels", func(t *testing.T) { t.Parallel(); tourParcels(ctx, t, c) })
		t.Run("dem", func(t *testing.T) { t.Parallel(); tourDEM(ctx, t, c) })
		t.Run("eo", func(t *testing.T) { t.Parallel(); tourEO(ctx, t, c) })
		t.Run("pointcloud", func(t *testing.T) { t.Parallel(); tourPointCloud(ctx, t, c) })
		t.Run("twin", func(t *testing.T) { t.Parallel(); tourTwin(ctx, t, c) })
		t.Run("webhooks", func(t *testing.T) { t.Parallel(); tourWebhooks(ctx, t, c) })
		t.Run("problems", func(t *testing.T) { t.Parallel(); tourProblems(ctx, t, c) })
		t.Run("ratelimit", func(t *testing.T) { t.Parallel(); tourRateLimit(ctx, t) })
		t.Run("tokens", func(t *testing.T) { t.Parallel(); tourTokens(ctx, t) })
	})
}

func tourDNS(ctx context.Context, t *testing.T, c *Client) {
	name := "tour-" + randomSuffix() + ".example.com"
	zone, err := c.CreateZone(ctx, CreateZone{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	if zone.Name != name || !strings.HasPrefix(zone.ID, "zone_") {
		t.Fatalf("zone: %+v", zone)
	}
	rec, err := c.CreateRecord(ctx, zone.ID, RecordBody{Type: Ptr("A"), Name: Ptr("www"), Content: Ptr("192.0.2.10"), TTL: Ptr(int64(300))})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Name != "www."+name || rec.TTL != 300 {
		t.Fatalf("record: %+v", rec)
	}
	if _, err := c.CreateRecord(ctx, zone.ID, RecordBody{Type: Ptr("TXT"), Name: Ptr("@"), Content: Ptr("v=spf1 -all")}); err != nil {
		t.Fatal(err)
	}

	// The authoritative server answers within a second.
	host, port, err := net.SplitHostPort(mainServer.dns)
	if err != nil {
		t.Fatal(err)
	}
	var answer string
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		out, err := exec.CommandContext(ctx, "dig", "@"+host, "-p", port, "www."+name, "A", "+short", "+time=2", "+tries=1").Output()
		if err != nil {
			t.Fatalf("dig: %v", err)
		}
		answer = strings.TrimSpace(string(out))
		if answer == "192.0.2.10" {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if answer != "192.0.2.10" {
		t.Fatalf("dig answered %q, want 192.0.2.10", answer)
	}

	// Records one per page: the iterator follows the Link header.
	it := c.AllRecords(zone.ID, &ListRecordsParams{Limit: 1})
	var types []string
	for it.Next(ctx) {
		types = append(types, it.Item().Type)
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(types)
	if strings.Join(types, ",") != "A,TXT" || it.Pages() < 2 {
		t.Fatalf("records %v over %d pages", types, it.Pages())
	}
	zones, err := c.AllZones(&ListZonesParams{Name: name}).All(ctx)
	if err != nil || len(zones) != 1 || zones[0].ID != zone.ID {
		t.Fatalf("zones %+v, %v", zones, err)
	}
}

func square(lon, lat, side float64) json.RawMessage {
	g := map[string]any{"type": "Polygon", "coordinates": [][][]float64{{
		{lon, lat}, {lon + side, lat}, {lon + side, lat + side}, {lon, lat + side}, {lon, lat},
	}}}
	b, _ := json.Marshal(g)
	return b
}

func registerParcel(ctx context.Context, t *testing.T, c *Client, geometry json.RawMessage, props map[string]any) GeoFeature {
	t.Helper()
	res, err := c.CreateParcelWithBody(ctx, nil, "application/geo+json", JSONReader(GeoFeature{Geometry: geometry, Properties: props}))
	if err != nil {
		t.Fatalf("registering %v: %v", props, err)
	}
	f, err := As[GeoFeature](res)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(f.ID, "parcel_") {
		t.Fatalf("parcel: %+v", f)
	}
	return f
}

func tourParcels(ctx context.Context, t *testing.T, c *Client) {
	plan := "DP" + randomSuffix()
	want := map[string]bool{}
	for i := 1; i <= 5; i++ {
		tenure := "freehold"
		if i == 3 {
			tenure = "leasehold"
		}
		f := registerParcel(ctx, t, c, square(151.2+float64(i)*0.002, -33.87, 0.001),
			map[string]any{"lot": fmt.Sprint(i), "plan": plan, "tenure": tenure})
		if area, _ := f.Properties["area_m2"].(float64); area < 9000 || area > 11000 {
			t.Fatalf("area_m2 = %v", f.Properties["area_m2"])
		}
		if tenure == "freehold" {
			want[f.ID] = true
		}
	}
	// A box and a CQL2 filter, two parcels a page: the iterator follows the `next` links.
	it := c.AllParcels(&ListParcelsParams{
		Bbox:   "151.1,-33.9,151.3,-33.8",
		Filter: fmt.Sprintf("tenure = 'freehold' AND plan = '%s'", plan),
		Limit:  2,
	})
	got := map[string]bool{}
	for it.Next(ctx) {
		f := it.Item()
		if got[f.ID] {
			t.Fatalf("parcel %s twice", f.ID)
		}
		got[f.ID] = true
		if f.Property("tenure") != "freehold" || f.Property("plan") != plan {
			t.Fatalf("parcel outside the filter: %+v", f.Properties)
		}
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || it.Pages() < 2 {
		t.Fatalf("%d parcels over %d pages, want %d over at least 2", len(got), it.Pages(), len(want))
	}
	for id := range want {
		if !got[id] {
			t.Fatalf("parcel %s missing", id)
		}
	}
	t.Logf("%d freehold parcels over %d pages", len(got), it.Pages())
	// The same walk, into a type of one's own.
	type parcelID struct {
		ID string `json:"id"`
	}
	again, err := IterateWith[parcelID](c, "/api/v1/cadastre/parcels", &ListParcelsParams{
		Filter: fmt.Sprintf("tenure = 'freehold' AND plan = '%s'", plan), Limit: 3,
	}, "features").All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != len(want) {
		t.Fatalf("IterateWith: %d parcels, want %d", len(again), len(want))
	}
	for _, p := range again {
		if !want[p.ID] {
			t.Fatalf("IterateWith: unexpected parcel %s", p.ID)
		}
	}
	if total, ok := it.Total(); !ok || total != int64(len(want)) {
		t.Fatalf("total %d (%v), want %d", total, ok, len(want))
	}
}

func tourDEM(ctx context.Context, t *testing.T, c *Client) {
	f, err := os.Open(testdata("crates", "raster", "tests", "data", "swissalti3d-2573-1085.tif"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	job, err := c.UploadDEM(ctx, f, "swissalti3d-2573-1085.tif", map[string]any{
		"operations": []any{map[string]any{"type": "hillshade", "multidirectional": true}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(job.ID, "job_") {
		t.Fatalf("job: %+v", job)
	}
	var seen []string
	done, err := c.WaitForJob(ctx, job.ID, func(j JobView) {
		seen = append(seen, fmt.Sprintf("%s:%d", j.Status, j.Progress))
	})
	if err != nil {
		t.Fatalf("job: %v (progress %v)", err, seen)
	}
	if done.Status != "succeeded" || done.Progress != 100 || len(seen) == 0 || seen[len(seen)-1] != "succeeded:100" {
		t.Fatalf("job %s %d, progress seen %v", done.Status, done.Progress, seen)
	}
	t.Logf("DEM job %s: progress seen %v", job.ID, seen)
	dj, err := c.GetDemJob(ctx, job.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(dj.Outputs) != 1 || dj.Outputs[0].Operation != "hillshade" {
		t.Fatalf("outputs: %+v", dj.Outputs)
	}
	// The output is a Cloud Optimized GeoTIFF: read its header by range.
	head, err := c.ReadRange(ctx, dj.Outputs[0].Href, 0, 4)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(head, []byte("II*\x00")) && !bytes.Equal(head, []byte("II+\x00")) {
		t.Fatalf("hillshade.tif starts with %q", head)
	}
}

type ndviResult struct {
	ID         string `json:"id"`
	Statistics struct {
		Min, Max, Mean float64
		Count          int64
	} `json:"statistics"`
	Outputs []struct {
		Href string `json:"href"`
	} `json:"outputs"`
	Zones struct {
		Features []GeoFeature `json:"features"`
	} `json:"zones"`
}

func tourEO(ctx context.Context, t *testing.T, c *Client) {
	coll := "cbers4-" + randomSuffix()
	_, err := c.CreateEoCollectionWithBody(ctx, "application/json", JSONReader(map[string]any{
		"id": coll, "description": "CBERS-4 MUX", "license": "CC-BY-SA-3.0",
		"extent": map[string]any{
			"spatial":  map[string]any{"bbox": [][]float64{{-180, -90, 180, 90}}},
			"temporal": map[string]any{"interval": [][]any{{nil, nil}}},
		},
	}))
	if err != nil {
		t.Fatal(err)
	}
	bands := map[string]string{"B5": "blue", "B6": "green", "B7": "red", "B8": "nir"}
	assets := map[string]io.Reader{}
	itemAssets := map[string]any{}
	for key, common := range bands {
		f, err := os.Open(testdata("crates", "eo", "tests", "data", "cbers4-mux-057-094-20171121-band"+key[1:]+".tif"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		assets[key] = f
		itemAssets[key] = map[string]any{"eo:bands": []any{map[string]any{"name": key, "common_name": common}}}
	}
	up, err := c.UploadEoScene(ctx, coll, map[string]any{"id": "scene1", "datetime": "2017-11-21T06:51:03Z", "assets": itemAssets}, assets)
	if err != nil {
		t.Fatal(err)
	}
	if up.StatusCode == http.StatusAccepted {
		if _, err := c.WaitForJob(ctx, up.JobID, nil); err != nil {
			t.Fatalf("ingest job %s: %v", up.JobID, err)
		}
	}
	// The scene is found by a STAC search.
	var scene *GeoFeature
	it := c.SearchEoItems(&SearchEoGetParams{Bbox: "53,4,55,7", Collections: coll})
	for it.Next(ctx) {
		f := it.Item()
		if f.ID == "scene1" {
			scene = &f
		}
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	if scene == nil || len(scene.Bbox) != 4 {
		t.Fatalf("scene1 not found by the search (%v)", scene)
	}
	// A parcel inside the scene, then NDVI with parcel zones.
	plan := "EO" + randomSuffix()
	lon := (scene.Bbox[0] + scene.Bbox[2]) / 2
	lat := (scene.Bbox[1] + scene.Bbox[3]) / 2
	parcel := registerParcel(ctx, t, c, square(lon-0.05, lat-0.05, 0.1), map[string]any{"lot": "1", "plan": plan, "tenure": "freehold"})
	res, err := c.ComputeEoIndexWithBody(ctx, "ndvi", "application/json", JSONReader(map[string]any{
		"scene": coll + "/scene1",
		"zones": map[string]any{"collection": "parcels", "filter": fmt.Sprintf("plan = '%s'", plan)},
	}))
	if err != nil {
		t.Fatal(err)
	}
	ndvi, err := As[ndviResult](res)
	if err != nil {
		t.Fatal(err)
	}
	if ndvi.Statistics.Count == 0 || ndvi.Statistics.Min < -1 || ndvi.Statistics.Max > 1 {
		t.Fatalf("statistics: %+v", ndvi.Statistics)
	}
	if len(ndvi.Zones.Features) != 1 || ndvi.Zones.Features[0].ID != parcel.ID {
		t.Fatalf("zones: %+v", ndvi.Zones.Features)
	}
	z := ndvi.Zones.Features[0].Properties
	t.Logf("NDVI %s: mean %.3f over %d pixels; parcel zone %v", ndvi.ID, ndvi.Statistics.Mean, ndvi.Statistics.Count, z)
	count, _ := z["count"].(float64)
	mean, _ := z["mean"].(float64)
	if count <= 0 || math.IsNaN(mean) || mean < -1 || mean > 1 {
		t.Fatalf("zone statistics: %v", z)
	}
	if len(ndvi.Outputs) == 0 {
		t.Fatal("no outputs")
	}
	head, err := c.ReadRange(ctx, ndvi.Outputs[0].Href, 0, 4)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(head, []byte("II*\x00")) && !bytes.Equal(head, []byte("II+\x00")) {
		t.Fatalf("index.tif starts with %q", head)
	}
}

func tourPointCloud(ctx context.Context, t *testing.T, c *Client) {
	f, err := os.Open(testdata("crates", "pointcloud", "tests", "data", "isprs-samp41.las"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	up, err := c.UploadPointCloud(ctx, &UploadPointCloudParams{Name: "survey"}, "application/vnd.las", f)
	if err != nil {
		t.Fatal(err)
	}
	indexJob, err := As[struct {
		ID string `json:"id"`
	}](up.Job)
	if err != nil || indexJob.ID == "" {
		t.Fatalf("upload answer without its job: %+v (%v)", up.Job, err)
	}
	if _, err := c.WaitForJob(ctx, indexJob.ID, nil); err != nil {
		t.Fatalf("indexing: %v", err)
	}
	pc, err := c.GetPointCloud(ctx, up.ID)
	if err != nil {
		t.Fatal(err)
	}
	if pc.Status != "ready" || pc.Points == nil || *pc.Points == 0 {
		t.Fatalf("point cloud after indexing: status %s points %v", pc.Status, pc.Points)
	}
	var progress []int64
	job, err := c.ClassifyPointCloud(ctx, up.ID, ClassifyBody{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitForJob(ctx, job.ID, func(j JobView) { progress = append(progress, int64(j.Progress)) }); err != nil {
		t.Fatalf("classification: %v", err)
	}
	if len(progress) == 0 || progress[len(progress)-1] != 100 {
		t.Fatalf("classification progress %v", progress)
	}
	t.Logf("point cloud %s: %d points, classification progress %v", up.ID, *pc.Points, progress)
	// COPC, whole and by range.
	var copc bytes.Buffer
	n, err := c.SavePointCloud(ctx, up.ID, &DownloadPointCloudParams{Format: "copc"}, &copc)
	if err != nil {
		t.Fatal(err)
	}
	if n < 375 || !bytes.HasPrefix(copc.Bytes(), []byte("LASF")) {
		t.Fatalf("COPC download: %d bytes starting %q", n, copc.Bytes()[:min(8, copc.Len())])
	}
	part, err := c.ReadRange(ctx, "/api/v1/pointcloud/"+up.ID+"/download?format=copc", 0, 4)
	if err != nil {
		t.Fatal(err)
	}
	if string(part) != "LASF" {
		t.Fatalf("range 0-3 is %q", part)
	}
	tail, err := c.ReadRange(ctx, "/api/v1/pointcloud/"+up.ID+"/download?format=copc", int64(copc.Len())-16, 16)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(tail, copc.Bytes()[copc.Len()-16:]) {
		t.Fatal("the last 16 bytes by range differ from the whole download")
	}
}

func min(a, b int) int {
	if a < b {
		return a
	}
	return b
}

func postReading(ctx context.Context, t *testing.T, c *Client, twin, sensor string, value float64) {
	t.Helper()
	if _, err := c.PostSensorReadingsWithBody(ctx, twin, sensor, "application/json", JSONReader(map[string]any{"value": value})); err != nil {
		t.Fatalf("posting %v: %v", value, err)
	}
}

func expectReading(ctx context.Context, t *testing.T, s *TelemetryStream, want float64) SensorReading {
	t.Helper()
	rctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	r, err := s.NextReading(rctx)
	if err != nil {
		t.Fatalf("waiting for %v: %v", want, err)
	}
	var v float64
	if err := json.Unmarshal(r.Value, &v); err != nil || v != want {
		t.Fatalf("reading %s = %s, want %v", r.SensorID, r.Value, want)
	}
	return r
}

func tourTwin(ctx context.Context, t *testing.T, c *Client) {
	tw, err := c.CreateTwin(ctx, CreateTwin{Name: Ptr("Old town"), Bbox: []float64{151.19, -33.88, 151.21, -33.86}, HeightProperty: Ptr("height")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateSensorWithBody(ctx, tw.ID, "application/json", JSONReader(map[string]any{"id": "pump-3", "unit": "l/s"})); err != nil {
		t.Fatal(err)
	}
	s, err := c.StreamTelemetry(ctx, tw.ID, TelemetryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hello, err := s.Next(ctx)
	if err != nil || hello.Type != "hello" {
		t.Fatalf("first message %+v, %v", hello, err)
	}
	postReading(ctx, t, c, tw.ID, "pump-3", 12.5)
	first := expectReading(ctx, t, s, 12.5)
	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}

	// Resume: what was posted while away comes first, nothing before it.
	postReading(ctx, t, c, tw.ID, "pump-3", 13.5)
	s2, err := c.StreamTelemetry(ctx, tw.ID, TelemetryOptions{Since: first.TS})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	expectReading(ctx, t, s2, 13.5)

	// A dropped connection is resumed by the stream itself, without losses or repeats.
	s2.dropConnection()
	postReading(ctx, t, c, tw.ID, "pump-3", 14.5)
	expectReading(ctx, t, s2, 14.5)
	if s2.Reconnects() != 1 {
		t.Fatalf("%d reconnections, want 1", s2.Reconnects())
	}
	t.Logf("twin %s: resumed after a dropped connection (%d reconnection)", tw.ID, s2.Reconnects())
	postReading(ctx, t, c, tw.ID, "pump-3", 15.5)
	expectReading(ctx, t, s2, 15.5)

	// The stored series pages with the Link header too.
	readings, err := c.AllReadings(tw.ID, "pump-3", &GetReadingsParams{Limit: 2, From: "2000-01-01T00:00:00Z"}).All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(readings) != 4 {
		t.Fatalf("%d stored readings, want 4", len(readings))
	}
}

type delivery struct {
	header http.Header
	body   []byte
	at     time.Time
}

func tourWebhooks(ctx context.Context, t *testing.T, c *Client) {
	got := make(chan delivery, 16)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- delivery{header: r.Header.Clone(), body: body, at: time.Now()}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()

	sub, err := c.CreateSubscription(ctx, CreateSubscription{URL: receiver.URL + "/hook", Events: []string{"dns.zone.created"}, Description: Ptr("tour")})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(sub.Secret, "whsec_") {
		t.Fatalf("subscription: %+v", sub)
	}
	zoneName := "hooked-" + randomSuffix() + ".example.com"
	if _, err := c.CreateZone(ctx, CreateZone{Name: zoneName}); err != nil {
		t.Fatal(err)
	}
	var d delivery
	select {
	case d = <-got:
	case <-time.After(30 * time.Second):
		t.Fatal("no delivery within 30 s")
	}
	var event struct {
		ID    string `json:"id"`
		Event string `json:"event"`
		Zone  string `json:"zone"`
	}
	if err := json.Unmarshal(d.body, &event); err != nil || event.Event != "dns.zone.created" {
		t.Fatalf("delivery %s (%v)", d.body, err)
	}
	if d.header.Get("X-Service-Signature") == "" || d.header.Get("Webhook-Signature") == "" {
		t.Fatalf("signature headers missing: %v", d.header)
	}
	t.Logf("delivery %s of %s verified", d.header.Get("X-Service-Delivery"), event.ID)
	if err := VerifyWebhook(sub.Secret, d.header, d.body, 5*time.Minute); err != nil {
		t.Fatalf("verifying a real delivery: %v", err)
	}
	tampered := bytes.Replace(d.body, []byte(zoneName), []byte("evil.example.com"), 1)
	if err := VerifyWebhook(sub.Secret, d.header, tampered, 5*time.Minute); !errors.Is(err, ErrWebhookSignature) {
		t.Fatalf("tampered body: %v, want ErrWebhookSignature", err)
	}
	if err := VerifyWebhook("whsec_"+strings.Repeat("A", 43)+"=", d.header, d.body, 5*time.Minute); !errors.Is(err, ErrWebhookSignature) {
		t.Fatalf("wrong secret: %v, want ErrWebhookSignature", err)
	}
	late := WebhookVerifier{Secret: sub.Secret, Tolerance: 5 * time.Minute, Now: func() time.Time { return d.at.Add(time.Hour) }}
	if err := late.Verify(d.header, d.body); !errors.Is(err, ErrWebhookTimestamp) {
		t.Fatalf("an hour later: %v, want ErrWebhookTimestamp", err)
	}
	// Each format alone verifies too.
	for _, drop := range [][]string{{"X-Service-Signature"}, {"Webhook-Signature", "Webhook-Id", "Webhook-Timestamp"}} {
		h := d.header.Clone()
		for _, k := range drop {
			h.Del(k)
		}
		if err := VerifyWebhook(sub.Secret, h, d.body, 5*time.Minute); err != nil {
			t.Fatalf("without %v: %v", drop, err)
		}
	}
	// The delivery is recorded as succeeded.
	deadline := time.Now().Add(20 * time.Second)
	for {
		ds, err := c.AllDeliveries(sub.ID, &ListDeliveriesParams{EventID: event.ID}).All(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(ds) == 1 && ds[0].Status == "succeeded" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("deliveries: %+v", ds)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func tourProblems(ctx context.Context, t *testing.T, c *Client) {
	_, err := c.CreateAPIKey(ctx, CreateAPIKey{Name: Ptr("ci"), Scopes: []string{"jobs:read", "dns:admin"}})
	var pe *ProblemError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T), want a *ProblemError", err, err)
	}
	if pe.Status != 422 || pe.Code != "validation_failed" || !errors.Is(err, ErrValidation) {
		t.Fatalf("problem %+v", pe)
	}
	f, ok := pe.Field("/scopes/1")
	if !ok || f.Code == "" {
		t.Fatalf("no problem at /scopes/1: pointers %v", pe.Pointers())
	}
	if !strings.HasPrefix(pe.RequestID, "req_") || pe.Title == "" || pe.Detail == "" {
		t.Fatalf("problem %+v", pe)
	}
	// An unknown member is pointed at too.
	_, err = c.CreateZoneWithBody(ctx, "application/json", JSONReader(map[string]any{"name": "x-" + randomSuffix() + ".example.com", "extra": 1}))
	if !errors.As(err, &pe) || pe.Status != 422 {
		t.Fatalf("unknown member: %v", err)
	}
	if f, ok := pe.Field("/extra"); !ok || f.Code != "unknown_field" {
		t.Fatalf("unknown member: pointers %v", pe.Pointers())
	}
	// 404 and errors.Is.
	_, err = c.GetZone(ctx, "zone_01aaaaaaaaaaaaaaaaaaaaaaaa")
	if !errors.Is(err, ErrNotFound) || !errors.As(err, &pe) || pe.Code != "not_found" {
		t.Fatalf("unknown zone: %v", err)
	}
}

func tourRateLimit(ctx context.Context, t *testing.T) {
	var mu sync.Mutex
	var events []RetryEvent
	policy := DefaultRetryPolicy()
	policy.OnRetry = func(e RetryEvent) {
		mu.Lock()
		events = append(events, e)
		mu.Unlock()
	}
	c, _ := signUp(t, ctx, limitedServer, WithRetryPolicy(policy))
	// The DNS bucket holds one request and refills one a second.
	if _, err := c.ListZones(ctx, nil); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := c.ListZones(ctx, nil); err != nil {
		t.Fatalf("with retries: %v", err)
	}
	elapsed := time.Since(start)
	mu.Lock()
	defer mu.Unlock()
	if len(events) == 0 {
		t.Fatal("the second request was not retried")
	}
	e := events[0]
	if e.StatusCode != 429 || e.RetryAfter == "" {
		t.Fatalf("retry event %+v", e)
	}
	ra := parseRetryAfter(e.RetryAfter, time.Now())
	if e.Wait != ra || elapsed < ra {
		t.Fatalf("waited %v (elapsed %v) for Retry-After %q", e.Wait, elapsed, e.RetryAfter)
	}

	t.Logf("429 retried after %v (Retry-After %q), request took %v", e.Wait, e.RetryAfter, elapsed)
	// Without retries the 429 is the error.
	nc, err := c.WithOptions(WithoutRetries())
	if err != nil {
		t.Fatal(err)
	}
	_, _ = nc.ListZones(ctx, nil)
	_, err = nc.ListZones(ctx, nil)
	var pe *ProblemError
	if !errors.As(err, &pe) || pe.Status != 429 || pe.Code != "rate_limited" || pe.RetryAfter <= 0 || !errors.Is(err, ErrRateLimited) {
		t.Fatalf("without retries: %v", err)
	}
}

// tourTokens checks that access tokens are renewed before they expire, on a server whose
// tokens last 3 seconds.
func tourTokens(ctx context.Context, t *testing.T) {
	c, created := signUp(t, ctx, limitedServer, WithAccessTokens())
	first, err := c.AccessToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	issued := time.Now()
	if first == created.APIKey || strings.HasPrefix(first, "mrd_") {
		t.Fatal("the access token is the API key")
	}
	if _, err := c.GetAccount(ctx); err != nil {
		t.Fatal(err)
	}
	if tok, _ := c.AccessToken(ctx); tok != first {
		t.Fatal("the token changed while fresh")
	}
	// A quarter of its life before it expires, the client takes a new one.
	time.Sleep(time.Until(c.TokenExpiry()) + 50*time.Millisecond)
	if _, err := c.GetAccount(ctx); err != nil {
		t.Fatal(err)
	}
	second, err := c.AccessToken(ctx)
	if err != nil || second == first {
		t.Fatalf("the token was not renewed (%v)", err)
	}
	// The first token has expired on the server: used as it is, it is refused.
	time.Sleep(time.Until(issued.Add(4500 * time.Millisecond)))
	stale, err := New(limitedServer.base, WithBearerToken(first))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stale.GetAccount(ctx); !errors.Is(err, ErrUnauthenticated) {
		t.Fatalf("an expired token: %v", err)
	}
	if _, err := c.GetAccount(ctx); err != nil {
		t.Fatalf("after the first token expired: %v", err)
	}
}
