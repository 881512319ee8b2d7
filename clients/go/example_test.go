package meridian_test

// The README's tour as compiled examples (they are built by go vet and go test; the tour test
// runs the same steps against a server).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/meridian-platform/meridian-go"
)

func Example() {
	ctx := context.Background()
	anon, err := meridian.New("http://localhost:8080")
	if err != nil {
		log.Fatal(err)
	}
	signup, err := anon.CreateAccount(ctx, meridian.CreateAccount{Name: "Ada", Email: "ada@example.com"})
	if err != nil {
		log.Fatal(err)
	}
	c, err := meridian.New("http://localhost:8080", meridian.WithAPIKey(signup.APIKey), meridian.WithAccessTokens())
	if err != nil {
		log.Fatal(err)
	}

	// DNS.
	zone, err := c.CreateZone(ctx, meridian.CreateZone{Name: "example.com"})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.CreateRecord(ctx, zone.ID, meridian.RecordBody{
		Type: meridian.Ptr("A"), Name: meridian.Ptr("www"), Content: meridian.Ptr("192.0.2.10"), TTL: meridian.Ptr(int64(300)),
	}); err != nil {
		log.Fatal(err)
	}

	// Parcels.
	square := json.RawMessage(`{"type": "Polygon", "coordinates": [[[151.2, -33.87], [151.201, -33.87],
		[151.201, -33.869], [151.2, -33.869], [151.2, -33.87]]]}`)
	res, err := c.CreateParcelWithBody(ctx, nil, "application/geo+json", meridian.JSONReader(meridian.GeoFeature{
		Geometry:   square,
		Properties: map[string]any{"lot": "1", "plan": "DP100", "tenure": "freehold"},
	}))
	if err != nil {
		log.Fatal(err)
	}
	parcel, err := meridian.As[meridian.GeoFeature](res)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(parcel.ID, parcel.Properties["area_m2"])
	it := c.AllParcels(&meridian.ListParcelsParams{Bbox: "151.1,-33.9,151.3,-33.8", Filter: "tenure = 'freehold'", Limit: 500})
	for it.Next(ctx) {
		fmt.Println(it.Item().ID, it.Item().Property("lot"))
	}
	if err := it.Err(); err != nil {
		log.Fatal(err)
	}

	// A DEM and a hillshade job.
	f, err := os.Open("swissalti3d-2573-1085.tif")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	job, err := c.UploadDEM(ctx, f, "swissalti3d-2573-1085.tif", map[string]any{
		"operations": []any{map[string]any{"type": "hillshade", "multidirectional": true}},
	})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.WaitForJob(ctx, job.ID, func(j meridian.JobView) { fmt.Println(j.Status, j.Progress) }); err != nil {
		log.Fatal(err)
	}

	// NDVI with parcel zones.
	ndviAnswer, err := c.ComputeEoIndexWithBody(ctx, "ndvi", "application/json", meridian.JSONReader(map[string]any{
		"scene": "cbers4/scene1",
		"zones": map[string]any{"collection": "parcels", "filter": "tenure = 'freehold'"},
	}))
	if err != nil {
		log.Fatal(err)
	}
	ndvi, err := meridian.As[struct {
		Zones struct{ Features []meridian.GeoFeature }
	}](ndviAnswer)
	if err != nil {
		log.Fatal(err)
	}
	for _, z := range ndvi.Zones.Features {
		fmt.Println(z.ID, z.Properties["mean"])
	}

	// A point cloud as COPC.
	las, err := os.Open("isprs-samp41.las")
	if err != nil {
		log.Fatal(err)
	}
	defer las.Close()
	pc, err := c.UploadPointCloud(ctx, &meridian.UploadPointCloudParams{Name: "survey"}, "application/vnd.las", las)
	if err != nil {
		log.Fatal(err)
	}
	index, err := meridian.As[struct{ ID string }](pc.Job)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.WaitForJob(ctx, index.ID, nil); err != nil {
		log.Fatal(err)
	}
	out, err := os.Create("survey.copc.laz")
	if err != nil {
		log.Fatal(err)
	}
	defer out.Close()
	if _, err := c.SavePointCloud(ctx, pc.ID, &meridian.DownloadPointCloudParams{Format: "copc"}, out); err != nil {
		log.Fatal(err)
	}

	// Twin telemetry.
	tw, err := c.CreateTwin(ctx, meridian.CreateTwin{Name: meridian.Ptr("Old town"), Bbox: []float64{151.19, -33.88, 151.21, -33.86}})
	if err != nil {
		log.Fatal(err)
	}
	stream, err := c.StreamTelemetry(ctx, tw.ID, meridian.TelemetryOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer stream.Close()
	r, err := stream.NextReading(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r.SensorID, string(r.Value), r.TS)
}

func ExampleVerifyWebhook() {
	secret := os.Getenv("MERIDIAN_WEBHOOK_SECRET")
	http.HandleFunc("/meridian", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "unreadable", http.StatusBadRequest)
			return
		}
		if err := meridian.VerifyWebhook(secret, r.Header, body, 5*time.Minute); err != nil {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
}

func ExampleProblemError() {
	c, err := meridian.New("http://localhost:8080", meridian.WithAPIKey(os.Getenv("MERIDIAN_API_KEY")))
	if err != nil {
		log.Fatal(err)
	}
	_, err = c.CreateAPIKey(context.Background(), meridian.CreateAPIKey{Scopes: []string{"dns:admin"}})
	var pe *meridian.ProblemError
	if errors.As(err, &pe) {
		fmt.Println(pe.Status, pe.Code, pe.Detail)
		for _, f := range pe.Errors {
			fmt.Println(f.Pointer, f.Code)
		}
	}
}
