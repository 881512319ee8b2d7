package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const (
	specPath  = "../../../../openapi.json"
	cargoPath = "../../../../crates/meridian/Cargo.toml"
	pkgDir    = "../.."
)

func TestDeterministic(t *testing.T) {
	first, _, err := run(specPath, cargoPath, pkgDir, "meridian")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		again, _, err := run(specPath, cargoPath, pkgDir, "meridian")
		if err != nil {
			t.Fatal(err)
		}
		for name, src := range first {
			if !bytes.Equal(src, again[name]) {
				t.Fatalf("%s differs between two runs", name)
			}
		}
	}
	for _, name := range []string{"types_gen.go", "operations_gen.go", "version_gen.go"} {
		if len(first[name]) == 0 {
			t.Fatalf("%s not generated", name)
		}
		if !bytes.HasPrefix(first[name], []byte("// Code generated")) {
			t.Fatalf("%s lacks the generated-code header", name)
		}
	}
}

func TestNames(t *testing.T) {
	for in, want := range map[string]string{
		"ApiKeyView":         "APIKeyView",
		"create_dns_webhook": "CreateDNSWebhook",
		"sensorId":           "SensorID",
		"eo:cloud_cover":     "EoCloudCover",
		"bbox-crs":           "BboxCrs",
		"If-Match":           "IfMatch",
		"ids":                "IDs",
		"urls":               "URLs",
		"3d":                 "N3d",
		"HTTPServer":         "HTTPServer",
		"":                   "X",
		"openapi_json":       "OpenapiJSON",
		"get_wmts_tile":      "GetWmtsTile",
	} {
		if got := goName(in); got != want {
			t.Errorf("goName(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"zone_id": "zoneID", "type": "typeParam", "url": "urlParam", "ID": "id", "body": "bodyParam"} {
		if got := argName(in); got != want {
			t.Errorf("argName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCargoVersion(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "Cargo.toml")
	crate := filepath.Join(dir, "crates", "x", "Cargo.toml")
	_ = os.MkdirAll(filepath.Dir(crate), 0o755)
	_ = os.WriteFile(ws, []byte("[workspace]\nmembers = [\"crates/*\"]\n\n[workspace.package]\nversion = \"2.3.4\"\nedition = \"2021\"\n\n[workspace.dependencies]\nserde = { version = \"1\" }\n"), 0o644)
	_ = os.WriteFile(crate, []byte("[package]\nname = \"x\"\nversion.workspace = true\n\n[dependencies]\nfoo = { version = \"9.9.9\" }\n"), 0o644)
	if v, err := cargoVersion(crate); err != nil || v != "2.3.4" {
		t.Fatalf("workspace version: %q %v", v, err)
	}
	_ = os.WriteFile(crate, []byte("[package]\nname = \"x\"\nversion = \"1.0.0\"\n"), 0o644)
	if v, err := cargoVersion(crate); err != nil || v != "1.0.0" {
		t.Fatalf("own version: %q %v", v, err)
	}
}

// syntheticAdditions are schemas and operations using the constructs an OpenAPI 3.1 document
// may hold, added to the real document.
const syntheticAdditions = `{
 "schemas": {
  "SynthShape": {"oneOf": [{"$ref": "#/components/schemas/SynthCircle"}, {"$ref": "#/components/schemas/SynthSquare"}, {"type": "null"}],
                 "discriminator": {"propertyName": "kind", "mapping": {"circle": "#/components/schemas/SynthCircle", "sq": "SynthSquare"}}},
  "SynthCircle": {"type": "object", "required": ["kind", "radius"], "properties": {"kind": {"const": "circle"}, "radius": {"type": "number"}}},
  "SynthSquare": {"type": "object", "required": ["kind"], "properties": {"kind": {"type": "string", "enum": ["sq"]}, "side": {"type": ["integer", "null"]}}},
  "SynthAny": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "array", "items": {"type": "string"}}, {"type": "object", "properties": {"x": {"type": "boolean"}}}]},
  "SynthTree": {"type": "object", "required": ["name", "self"], "properties": {"name": {"type": "string"}, "self": {"$ref": "#/components/schemas/SynthTree"},
                "children": {"type": "array", "items": {"$ref": "#/components/schemas/SynthTree"}}}},
  "SynthOpen": {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}, "type": {"type": "string"}, "default": {"type": "boolean"}},
                "additionalProperties": {"type": "number"}},
  "SynthFree": {"type": "object", "additionalProperties": true, "properties": {"a": {"type": "string", "format": "date-time"}}},
  "SynthMap": {"type": "object", "additionalProperties": {"$ref": "#/components/schemas/SynthCircle"}},
  "SynthAll": {"allOf": [{"$ref": "#/components/schemas/SynthCircle"}, {"type": "object", "required": ["label"], "properties": {"label": {"type": "string"}}}, {"description": "only a note"}]},
  "SynthEnum": {"type": ["string", "null"], "enum": ["a-b", "", "C d", null]},
  "SynthInts": {"type": "integer", "enum": [0, 128]},
  "SynthMixed": {"type": ["string", "number"]},
  "SynthConst": {"const": 3},
  "SynthRefAlias": {"$ref": "#/components/schemas/SynthCircle", "description": "3.1 allows siblings"},
  "SynthDeep": {"$ref": "#/components/schemas/SynthTree/properties/children"},
  "SynthNothing": {},
  "SynthFalse": false,
  "Client": {"type": "object", "properties": {"name": {"type": "string"}}},
  "synth_snake-name": {"type": "object", "properties": {"range": {"type": "integer"}, "Range": {"type": "string"}, "123": {"type": "string"}}}
 },
 "responses": {
  "SynthOK": {"description": "A shape", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/SynthShape"}}}},
  "SynthProblem": {"description": "Problem", "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}}
 },
 "parameters": {
  "SynthLimit": {"name": "limit", "in": "query", "schema": {"type": "integer", "format": "int32"}}
 },
 "requestBodies": {
  "SynthBody": {"required": true, "content": {"application/merge-patch+json": {"schema": {"$ref": "#/components/schemas/SynthOpen"}}, "text/csv": {"schema": {"type": "string"}}}}
 },
 "paths": {
  "/synthetic/{shape_id}/items/{n}": {
   "parameters": [{"name": "shape_id", "in": "path", "required": true, "schema": {"type": "string"}},
                  {"name": "n", "in": "path", "required": true, "schema": {"type": "string"}},
                  {"name": "verbose", "in": "query", "schema": {"type": "boolean"}}],
   "get": {"operationId": "synth_get",
           "parameters": [{"name": "n", "in": "path", "required": true, "schema": {"type": "integer"}},
                          {"$ref": "#/components/parameters/SynthLimit"},
                          {"name": "tags", "in": "query", "schema": {"type": "array", "items": {"type": "string"}}},
                          {"name": "ids", "in": "query", "explode": false, "schema": {"type": "array", "items": {"type": "integer"}}},
                          {"name": "since", "in": "query", "schema": {"type": "string", "format": "date-time"}},
                          {"name": "kind", "in": "query", "required": true, "schema": {"$ref": "#/components/schemas/SynthEnum"}},
                          {"name": "X-Trace", "in": "header", "schema": {"type": "string"}},
                          {"name": "session", "in": "cookie", "schema": {"type": "string"}}],
           "responses": {"200": {"$ref": "#/components/responses/SynthOK"}, "default": {"$ref": "#/components/responses/SynthProblem"}}},
   "patch": {"operationId": "synth_patch", "requestBody": {"$ref": "#/components/requestBodies/SynthBody"},
             "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/SynthOpen"}}, "application/geo+json": {"schema": {"$ref": "#/components/schemas/SynthTree"}}}},
                           "202": {"description": "later", "content": {"application/json": {"schema": {"type": "object", "properties": {"job": {"type": "string"}}}}}},
                           "2XX": {"description": "other", "content": {"application/json": {"schema": {"type": "array", "items": {"$ref": "#/components/schemas/SynthAny"}}}}},
                           "204": {"description": "nothing"}}}
  },
  "/synthetic/upload": {
   "post": {"operationId": "synthUpload", "requestBody": {"content": {"multipart/form-data": {"schema": {"type": "object"}}}},
            "responses": {"201": {"description": "made", "content": {"application/json": {"schema": {"allOf": [{"$ref": "#/components/schemas/SynthAll"}]}}}}}},
   "delete": {"operationId": "synth delete", "responses": {"204": {"description": "gone"}}}
  },
  "/synthetic/stream": {
   "get": {"operationId": "synth_stream", "responses": {"200": {"description": "bytes", "content": {"application/octet-stream": {}}}, "101": {"description": "ws"}}}
  }
 }
}`

// syntheticUse exercises the generated code at run time.
const syntheticUse = `package meridian

import (
	"encoding/json"
	"testing"
)

func TestSyntheticGenerated(t *testing.T) {
	var s SynthShape
	if err := json.Unmarshal([]byte(` + "`" + `{"kind":"sq","side":4}` + "`" + `), &s); err != nil {
		t.Fatal(err)
	}
	v, err := s.ValueByDiscriminator()
	if err != nil {
		t.Fatal(err)
	}
	sq, ok := v.(SynthSquare)
	if !ok || sq.Side == nil || *sq.Side != 4 || sq.Kind != SynthSquareKindSq {
		t.Fatalf("%#v", v)
	}
	if err := s.FromSynthCircle(SynthCircle{Kind: "circle", Radius: 2}); err != nil {
		t.Fatal(err)
	}
	if d, _ := s.Discriminator(); d != "circle" {
		t.Fatalf("discriminator %q", d)
	}
	b, _ := json.Marshal(struct{ S *SynthShape }{&s})
	if string(b) != ` + "`" + `{"S":{"kind":"circle","radius":2}}` + "`" + ` {
		t.Fatalf("%s", b)
	}
	var o SynthOpen
	in := ` + "`" + `{"id":"x","type":"t","default":false,"extra":1.5,"more":2}` + "`" + `
	if err := json.Unmarshal([]byte(in), &o); err != nil {
		t.Fatal(err)
	}
	if o.ID != "x" || o.Default == nil || *o.Default || o.AdditionalProperties["extra"] != 1.5 || len(o.AdditionalProperties) != 2 {
		t.Fatalf("%#v", o)
	}
	out, _ := json.Marshal(o)
	var back map[string]any
	_ = json.Unmarshal(out, &back)
	if len(back) != 5 || back["more"] != 2.0 {
		t.Fatalf("%s", out)
	}
	all := SynthAll{Kind: "circle", Radius: 1, Label: "l"}
	if b, _ := json.Marshal(all); string(b) != ` + "`" + `{"kind":"circle","label":"l","radius":1}` + "`" + ` {
		t.Fatalf("%s", b)
	}
	var a SynthAny
	_ = json.Unmarshal([]byte(` + "`" + `["p","q"]` + "`" + `), &a)
	if l, err := a.AsStringList(); err != nil || len(l) != 2 {
		t.Fatalf("%v %v", l, err)
	}
	tree := SynthTree{Name: "root", Self: &SynthTree{Name: "leaf"}}
	if tree.Self.Name != "leaf" {
		t.Fatal("tree")
	}
	var e SynthEnum = SynthEnumAB
	_ = SynthEnumEmpty
	_ = SynthEnumCD
	var _ ClientSchema
	var _ SynthSnakeName
	var p SynthGetParams
	p.Kind = e
	p.Tags = []string{"a", "b"}
	p.IDs = []int64{1, 2}
	req := &apiRequest{}
	p.encode(req)
	if req.query.Get("kind") != "a-b" || len(req.query["tags"]) != 2 || req.query.Get("ids") != "1,2" {
		t.Fatalf("%v", req.query)
	}
	var r SynthPatchResponse
	r.JSON202 = &SynthPatchResult202{Job: "j"}
	if r.Value() == nil {
		t.Fatal("value")
	}
	var _ = (*Client).SynthDelete
	var _ = (*Client).SynthStream
	var _ = (*Client).SynthUploadWithBody
}
`

// TestSyntheticDocumentCompiles generates from the real document with every construct added,
// and builds, vets and tests the result together with the package's hand-written files: the
// hand-written layer must keep compiling whatever the document gains.
func TestSyntheticDocumentCompiles(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go tool is needed: %v", err)
	}
	raw, err := os.ReadFile(specPath)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	var add map[string]map[string]any
	if err := json.Unmarshal([]byte(syntheticAdditions), &add); err != nil {
		t.Fatal(err)
	}
	comps := doc["components"].(map[string]any)
	for section, entries := range add {
		if section == "paths" {
			paths := doc["paths"].(map[string]any)
			for k, v := range entries {
				paths[k] = v
			}
			continue
		}
		m, _ := comps[section].(map[string]any)
		if m == nil {
			m = map[string]any{}
			comps[section] = m
		}
		for k, v := range entries {
			m[k] = v
		}
	}

	dir := t.TempDir()
	entries, err := os.ReadDir(pkgDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_gen.go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(pkgDir, n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	handTypes, handMethods, err := handWrittenNames(dir, "meridian")
	if err != nil {
		t.Fatal(err)
	}
	files, warnings, err := generate(doc, "meridian", "0.0.0", handTypes, handMethods)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "cookie") {
		t.Errorf("warnings: %q", warnings)
	}
	for n, b := range files {
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/synthetic\n\ngo 1.19\n"), 0o644)
	_ = os.WriteFile(filepath.Join(dir, "synthetic_test.go"), []byte(syntheticUse), 0o644)
	for _, args := range [][]string{{"vet", "./..."}, {"test", "-count=1", "-run", "TestSyntheticGenerated", "./..."}} {
		cmd := exec.Command(goTool, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=", "GOWORK=off")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}
