package meridian

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Iterator walks a paged list item by item, fetching the next page by the `next` link of the
// previous one (a `links` member of the body, as GeoJSON and STAC answers have, or the `Link`
// header of the other lists), so that a deep page costs what the first does.
//
//	it := client.AllZones(nil)
//	for it.Next(ctx) {
//		zone := it.Item()
//		...
//	}
//	if err := it.Err(); err != nil { ... }
type Iterator[T any] struct {
	c        *Client
	req      *pageRequest // the next page to fetch; nil after the last
	itemsKey string
	opts     []RequestOption
	items    []json.RawMessage
	pos      int
	cur      T
	err      error
	pages    int
	total    int64
	hasTotal bool
	seen     map[string]bool
}

type pageRequest struct {
	method      string
	path        string
	query       url.Values
	body        []byte
	contentType string
}

// newIterator makes an iterator whose first page is r.
func newIterator[T any](c *Client, r *apiRequest, itemsKey string, opts []RequestOption) *Iterator[T] {
	pr := &pageRequest{method: r.method, path: r.path, query: r.query, contentType: r.contentType}
	return &Iterator[T]{c: c, req: pr, itemsKey: itemsKey, opts: opts, seen: map[string]bool{}}
}

// Iterate walks any paged list: method and path (with its query) of the first page, and the
// member of each page holding the items ("features" for GeoJSON and STAC answers, "zones",
// "records", ... for the others). T is what each item is decoded into.
func Iterate[T any](c *Client, method, pathAndQuery, itemsKey string, opts ...RequestOption) *Iterator[T] {
	r := &apiRequest{method: method, path: pathAndQuery}
	return newIterator[T](c, r, itemsKey, opts)
}

// ListParams is what the generated parameter structs are (ListZonesParams,
// ListParcelsParams, ...): IterateWith sends one as the query of the first page.
type ListParams interface {
	encode(*apiRequest)
}

// IterateWith walks a paged list whose first page is GET path with params (a generated
// parameter struct, or nil), decoding each item of the itemsKey member into T. It is how to
// iterate into the document's own types:
//
//	it := meridian.IterateWith[meridian.Parcel](client, "/api/v1/cadastre/parcels",
//		&meridian.ListParcelsParams{Bbox: "151.1,-33.9,151.3,-33.8", Limit: 500}, "features")
func IterateWith[T any](c *Client, path string, params ListParams, itemsKey string, opts ...RequestOption) *Iterator[T] {
	r := &apiRequest{method: http.MethodGet, path: path}
	if params != nil {
		params.encode(r)
	}
	return newIterator[T](c, r, itemsKey, opts)
}

// IteratePost walks a list whose pages are asked for with a JSON body (STAC POST search);
// the `next` links the server gives carry the method and body of the following page.
func IteratePost[T any](c *Client, path string, body any, itemsKey string, opts ...RequestOption) *Iterator[T] {
	it := newIterator[T](c, &apiRequest{method: http.MethodPost, path: path, contentType: "application/json"}, itemsKey, opts)
	b, err := json.Marshal(body)
	if err != nil {
		it.err = err
		return it
	}
	it.req.body = b
	return it
}

// Next advances to the next item, fetching a page when needed. It returns false at the end of
// the list or on an error (see Err).
func (it *Iterator[T]) Next(ctx context.Context) bool {
	if it.err != nil {
		return false
	}
	for it.pos >= len(it.items) {
		if it.req == nil {
			return false
		}
		if err := it.fetch(ctx); err != nil {
			it.err = err
			return false
		}
	}
	var v T
	if err := json.Unmarshal(it.items[it.pos], &v); err != nil {
		it.err = fmt.Errorf("meridian: decoding item %d of page %d: %w", it.pos, it.pages, err)
		return false
	}
	it.pos++
	it.cur = v
	return true
}

// Item returns the current item.
func (it *Iterator[T]) Item() T { return it.cur }

// Err returns the error that stopped the iteration, if any.
func (it *Iterator[T]) Err() error { return it.err }

// Pages returns how many pages were fetched so far.
func (it *Iterator[T]) Pages() int { return it.pages }

// Total returns the number of matches the last page announced (`total`, `numberMatched` or
// `context.matched`), when it did.
func (it *Iterator[T]) Total() (int64, bool) { return it.total, it.hasTotal }

// All collects the remaining items.
func (it *Iterator[T]) All(ctx context.Context) ([]T, error) {
	var out []T
	for it.Next(ctx) {
		out = append(out, it.Item())
	}
	return out, it.Err()
}

type pageLink struct {
	Rel    string          `json:"rel"`
	Href   string          `json:"href"`
	Method string          `json:"method"`
	Body   json.RawMessage `json:"body"`
	Merge  bool            `json:"merge"`
}

func (it *Iterator[T]) fetch(ctx context.Context) error {
	pr := it.req
	key := pr.method + " " + pr.path + "?" + pr.query.Encode() + " " + string(pr.body)
	if it.seen[key] {
		return fmt.Errorf("meridian: the server's next link repeats page %s", pr.path)
	}
	it.seen[key] = true
	r := &apiRequest{method: pr.method, path: pr.path, query: pr.query, contentType: pr.contentType}
	if pr.body != nil {
		r.body = bytes.NewReader(pr.body)
	}
	resp, err := it.c.doRaw(ctx, r, it.opts)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var page map[string]json.RawMessage
	if err := decodeBody(resp, &page); err != nil {
		return err
	}
	it.pages++
	it.items = nil
	it.pos = 0
	if raw, ok := page[it.itemsKey]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &it.items); err != nil {
			return fmt.Errorf("meridian: page member %q is not a list: %w", it.itemsKey, err)
		}
	} else if !ok {
		return fmt.Errorf("meridian: the page of %s has no %q member", pr.path, it.itemsKey)
	}
	it.readTotal(page)
	it.req = nil
	// A next link in the body (GeoJSON, STAC) ...
	if raw, ok := page["links"]; ok {
		var links []pageLink
		if json.Unmarshal(raw, &links) == nil {
			for _, l := range links {
				if !strings.EqualFold(l.Rel, "next") || l.Href == "" {
					continue
				}
				next := &pageRequest{method: http.MethodGet, path: l.Href}
				if l.Method != "" {
					next.method = strings.ToUpper(l.Method)
				}
				if next.method != http.MethodGet && next.method != http.MethodHead {
					body := []byte(l.Body)
					if l.Merge && len(pr.body) > 0 {
						body = mergeJSON(pr.body, l.Body)
					}
					if len(body) == 0 {
						body = pr.body
					}
					next.body = body
					next.contentType = "application/json"
				}
				it.req = next
				break
			}
		}
	}
	// ... or in the Link header.
	if it.req == nil {
		if href := linkHeaderNext(resp.Header.Values("Link")); href != "" {
			it.req = &pageRequest{method: http.MethodGet, path: href}
		}
	}
	if it.req != nil && !strings.Contains(it.req.path, "://") && !strings.HasPrefix(it.req.path, "/") {
		// A link relative to the page it came from.
		if base, err := url.Parse(pr.path); err == nil {
			if ref, err := url.Parse(it.req.path); err == nil {
				it.req.path = base.ResolveReference(ref).String()
			}
		}
	}
	return nil
}

func (it *Iterator[T]) readTotal(page map[string]json.RawMessage) {
	for _, k := range []string{"total", "numberMatched"} {
		if raw, ok := page[k]; ok {
			var n int64
			if json.Unmarshal(raw, &n) == nil {
				it.total, it.hasTotal = n, true
				return
			}
		}
	}
	if raw, ok := page["meta"]; ok {
		var m struct {
			Total *int64 `json:"total"`
		}
		if json.Unmarshal(raw, &m) == nil && m.Total != nil {
			it.total, it.hasTotal = *m.Total, true
			return
		}
	}
	if raw, ok := page["context"]; ok {
		var m struct {
			Matched *int64 `json:"matched"`
		}
		if json.Unmarshal(raw, &m) == nil && m.Matched != nil {
			it.total, it.hasTotal = *m.Matched, true
		}
	}
}

// mergeJSON merges the members of patch into base (both JSON objects).
func mergeJSON(base, patch []byte) []byte {
	var a, b map[string]json.RawMessage
	if json.Unmarshal(base, &a) != nil || json.Unmarshal(patch, &b) != nil {
		return patch
	}
	for k, v := range b {
		a[k] = v
	}
	out, err := json.Marshal(a)
	if err != nil {
		return patch
	}
	return out
}

// linkHeaderNext finds the rel="next" target of Link headers (RFC 8288).
func linkHeaderNext(values []string) string {
	for _, v := range values {
		for _, part := range splitLinks(v) {
			part = strings.TrimSpace(part)
			if !strings.HasPrefix(part, "<") {
				continue
			}
			end := strings.Index(part, ">")
			if end < 0 {
				continue
			}
			target := part[1:end]
			for _, p := range strings.Split(part[end+1:], ";") {
				p = strings.TrimSpace(p)
				name, value, ok := strings.Cut(p, "=")
				if !ok || !strings.EqualFold(strings.TrimSpace(name), "rel") {
					continue
				}
				for _, rel := range strings.Fields(strings.Trim(strings.TrimSpace(value), `"`)) {
					if strings.EqualFold(rel, "next") {
						return target
					}
				}
			}
		}
	}
	return ""
}

// splitLinks splits a Link header at the commas between links (not those inside <...> or
// quotes).
func splitLinks(v string) []string {
	var out []string
	depth, quoted, start := 0, false, 0
	for i, r := range v {
		switch {
		case r == '"':
			quoted = !quoted
		case r == '<' && !quoted:
			depth++
		case r == '>' && !quoted && depth > 0:
			depth--
		case r == ',' && !quoted && depth == 0:
			out = append(out, v[start:i])
			start = i + 1
		}
	}
	return append(out, v[start:])
}

// GeoFeature is a GeoJSON Feature (RFC 7946) as the cadastre, OGC API Features and STAC
// answer it: its id, geometry and properties, with every other member (a STAC Item's
// `collection`, `assets`, `links`, ...) kept in Extra.
type GeoFeature struct {
	Type       string                     `json:"type"`
	ID         string                     `json:"id,omitempty"`
	Geometry   json.RawMessage            `json:"geometry"`
	Properties map[string]any             `json:"properties"`
	Bbox       []float64                  `json:"bbox,omitempty"`
	Extra      map[string]json.RawMessage `json:"-"`
}

// MarshalJSON writes the feature with its Extra members.
func (f GeoFeature) MarshalJSON() ([]byte, error) {
	m := map[string]any{}
	for k, v := range f.Extra {
		m[k] = v
	}
	typ := f.Type
	if typ == "" {
		typ = "Feature"
	}
	m["type"] = typ
	if f.ID != "" {
		m["id"] = f.ID
	}
	if len(f.Geometry) > 0 {
		m["geometry"] = f.Geometry
	} else {
		m["geometry"] = nil
	}
	m["properties"] = f.Properties
	if f.Bbox != nil {
		m["bbox"] = f.Bbox
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads a feature; a numeric id becomes its decimal text.
func (f *GeoFeature) UnmarshalJSON(data []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	*f = GeoFeature{}
	if raw, ok := m["type"]; ok {
		if err := json.Unmarshal(raw, &f.Type); err != nil {
			return fmt.Errorf("feature type: %w", err)
		}
	}
	if raw, ok := m["id"]; ok && string(raw) != "null" {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			f.ID = s
		} else {
			var n json.Number
			if err := json.Unmarshal(raw, &n); err != nil {
				return fmt.Errorf("feature id: %w", err)
			}
			f.ID = n.String()
		}
	}
	if raw, ok := m["geometry"]; ok && string(raw) != "null" {
		f.Geometry = append(json.RawMessage(nil), raw...)
	}
	if raw, ok := m["properties"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &f.Properties); err != nil {
			return fmt.Errorf("feature properties: %w", err)
		}
	}
	if raw, ok := m["bbox"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &f.Bbox); err != nil {
			return fmt.Errorf("feature bbox: %w", err)
		}
	}
	for _, k := range []string{"type", "id", "geometry", "properties", "bbox"} {
		delete(m, k)
	}
	if len(m) > 0 {
		f.Extra = m
	}
	return nil
}

// Property returns a property as text ("" when absent; numbers and booleans in JSON form).
func (f GeoFeature) Property(name string) string {
	v, ok := f.Properties[name]
	if !ok || v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// The lists of the API as iterators. Each takes the list operation's parameters (a nil
// pointer for none); the page size is its `limit`.

// AllParcels iterates the cadastre's parcels (GET /api/v1/cadastre/parcels): bbox, CQL2
// filter, sort and the other parameters of ListParcelsParams.
func (c *Client) AllParcels(params *ListParcelsParams, opts ...RequestOption) *Iterator[GeoFeature] {
	r := &apiRequest{method: http.MethodGet, path: "/api/v1/cadastre/parcels"}
	params.encode(r)
	return newIterator[GeoFeature](c, r, "features", opts)
}

// AllFeatures iterates the features of an OGC API Features collection
// (GET /api/v1/ogc/v1/features/collections/{cid}/items) with the given query (bbox, filter,
// limit, a queryable property, ...).
func (c *Client) AllFeatures(collection string, query url.Values, opts ...RequestOption) *Iterator[GeoFeature] {
	r := &apiRequest{method: http.MethodGet, path: "/api/v1/ogc/v1/features/collections/" + url.PathEscape(collection) + "/items", query: query}
	return newIterator[GeoFeature](c, r, "features", opts)
}

// AllEoItems iterates the STAC Items of an EO collection.
func (c *Client) AllEoItems(collection string, params *ListEoItemsParams, opts ...RequestOption) *Iterator[GeoFeature] {
	r := &apiRequest{method: http.MethodGet, path: "/api/v1/eo/collections/" + url.PathEscape(collection) + "/items"}
	params.encode(r)
	return newIterator[GeoFeature](c, r, "features", opts)
}

// SearchEoItems runs a STAC Item Search (GET /api/v1/eo/search) and iterates its matches.
func (c *Client) SearchEoItems(params *SearchEoGetParams, opts ...RequestOption) *Iterator[GeoFeature] {
	r := &apiRequest{method: http.MethodGet, path: "/api/v1/eo/search"}
	params.encode(r)
	return newIterator[GeoFeature](c, r, "features", opts)
}

// SearchEoItemsPost runs a STAC Item Search with a JSON body (POST /api/v1/eo/search:
// collections, bbox, intersects, datetime, filter in cql2-json, sortby, fields, limit).
func (c *Client) SearchEoItemsPost(body any, opts ...RequestOption) *Iterator[GeoFeature] {
	return IteratePost[GeoFeature](c, "/api/v1/eo/search", body, "features", opts...)
}

// AllZones iterates the account's DNS zones.
func (c *Client) AllZones(params *ListZonesParams, opts ...RequestOption) *Iterator[ZoneView] {
	r := &apiRequest{method: http.MethodGet, path: "/v1/dns/zones"}
	params.encode(r)
	return newIterator[ZoneView](c, r, "zones", opts)
}

// AllRecords iterates the records of a DNS zone.
func (c *Client) AllRecords(zoneID string, params *ListRecordsParams, opts ...RequestOption) *Iterator[RecordView] {
	r := &apiRequest{method: http.MethodGet, path: "/v1/dns/zones/" + url.PathEscape(zoneID) + "/records"}
	params.encode(r)
	return newIterator[RecordView](c, r, "records", opts)
}

// AllAPIKeys iterates the account's API keys.
func (c *Client) AllAPIKeys(params *ListAPIKeysParams, opts ...RequestOption) *Iterator[APIKeyView] {
	r := &apiRequest{method: http.MethodGet, path: "/api/v1/account/api-keys"}
	params.encode(r)
	return newIterator[APIKeyView](c, r, "api_keys", opts)
}

// AllJobs iterates the account's jobs (every area).
func (c *Client) AllJobs(params *ListJobsParams, opts ...RequestOption) *Iterator[JobView] {
	r := &apiRequest{method: http.MethodGet, path: "/api/v1/jobs"}
	params.encode(r)
	return newIterator[JobView](c, r, "jobs", opts)
}

// AllDemJobs iterates the account's DEM jobs, newest first.
func (c *Client) AllDemJobs(params *ListDemJobsParams, opts ...RequestOption) *Iterator[DemJobView] {
	r := &apiRequest{method: http.MethodGet, path: "/api/v1/dem/jobs"}
	params.encode(r)
	return newIterator[DemJobView](c, r, "jobs", opts)
}

// AllDemDatasets iterates the account's uploaded DEMs, newest first.
func (c *Client) AllDemDatasets(params *ListDemDatasetsParams, opts ...RequestOption) *Iterator[DatasetView] {
	r := &apiRequest{method: http.MethodGet, path: "/api/v1/dem/datasets"}
	params.encode(r)
	return newIterator[DatasetView](c, r, "datasets", opts)
}

// AllPointClouds iterates the account's point clouds, newest first.
func (c *Client) AllPointClouds(params *ListPointCloudsParams, opts ...RequestOption) *Iterator[PointCloudView] {
	r := &apiRequest{method: http.MethodGet, path: "/api/v1/pointcloud"}
	params.encode(r)
	return newIterator[PointCloudView](c, r, "point_clouds", opts)
}

// AllTwins iterates the account's digital twins.
func (c *Client) AllTwins(params *ListTwinsParams, opts ...RequestOption) *Iterator[TwinView] {
	r := &apiRequest{method: http.MethodGet, path: "/api/v1/realtime/twins"}
	params.encode(r)
	return newIterator[TwinView](c, r, "twins", opts)
}

// AllSubscriptions iterates the account's webhook subscriptions.
func (c *Client) AllSubscriptions(params *ListSubscriptionsParams, opts ...RequestOption) *Iterator[SubscriptionView] {
	r := &apiRequest{method: http.MethodGet, path: "/api/v1/webhooks/subscriptions"}
	params.encode(r)
	return newIterator[SubscriptionView](c, r, "subscriptions", opts)
}

// AllDNSWebhooks iterates the account's DNS webhook subscriptions.
func (c *Client) AllDNSWebhooks(params *ListDNSWebhooksParams, opts ...RequestOption) *Iterator[SubscriptionView] {
	r := &apiRequest{method: http.MethodGet, path: "/v1/dns/webhooks"}
	params.encode(r)
	return newIterator[SubscriptionView](c, r, "subscriptions", opts)
}

// AllDeliveries iterates the deliveries of a webhook subscription (status and event_id filter
// them).
func (c *Client) AllDeliveries(subscriptionID string, params *ListDeliveriesParams, opts ...RequestOption) *Iterator[DeliveryView] {
	r := &apiRequest{method: http.MethodGet, path: "/api/v1/webhooks/subscriptions/" + url.PathEscape(subscriptionID) + "/deliveries"}
	params.encode(r)
	return newIterator[DeliveryView](c, r, "deliveries", opts)
}

// AllReadings iterates the stored readings of a twin's sensor (from, to, limit, interval).
func (c *Client) AllReadings(twinID, sensorID string, params *GetReadingsParams, opts ...RequestOption) *Iterator[SensorReading] {
	r := &apiRequest{method: http.MethodGet, path: "/api/v1/realtime/twin/" + url.PathEscape(twinID) + "/sensors/" + url.PathEscape(sensorID) + "/readings"}
	params.encode(r)
	return newIterator[SensorReading](c, r, "readings", opts)
}
