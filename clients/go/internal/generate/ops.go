package main

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

var httpMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

type param struct {
	Name     string
	In       string
	GoField  string
	Arg      string
	Type     tinfo
	FieldTyp string
	Required bool
	Doc      string
	Explode  bool
}

type statusResult struct {
	Code  string // "200", or "2XX"
	Type  *tinfo // nil: no body
	Media string // the JSON media type of Type
	Doc   string
	Field string
}

const (
	resNone = iota
	resSingle
	resMulti
	resRaw
)

type operation struct {
	ID          string
	Method      string
	Path        string
	GoName      string
	Doc         string
	PathParams  []*param
	Params      []*param
	ParamsType  string
	HasBody     bool
	BodyDoc     string
	JSONBody    *tinfo
	JSONCT      string
	OtherCTs    []string
	ResultKind  int
	Single      tinfo
	Statuses    []statusResult
	MultiType   string
	SuccessDocs []string
}

// isJSONMedia: application/json, any +json type, with or without parameters.
func isJSONMedia(mt string) bool {
	base := strings.ToLower(strings.TrimSpace(strings.SplitN(mt, ";", 2)[0]))
	return base == "application/json" || base == "text/json" || strings.HasSuffix(base, "+json")
}

func (g *generator) derefObj(s any, kind string) map[string]any {
	m, _ := s.(map[string]any)
	seen := map[string]bool{}
	for m != nil {
		ref, ok := m["$ref"].(string)
		if !ok || seen[ref] {
			break
		}
		seen[ref] = true
		t, ok := g.resolvePointer(ref)
		if !ok {
			g.warn("unresolved %s $ref %s", kind, ref)
			return nil
		}
		next, _ := t.(map[string]any)
		// Sibling keywords of a $ref (a description) are kept when the target lacks them.
		merged := map[string]any{}
		for k, v := range next {
			merged[k] = v
		}
		for k, v := range m {
			if k == "$ref" {
				continue
			}
			if _, has := merged[k]; !has {
				merged[k] = v
			}
		}
		m = merged
	}
	return m
}

func (g *generator) collectOperations() []*operation {
	paths, _ := g.doc["paths"].(map[string]any)
	var ops []*operation
	for _, p := range sortedKeys(paths) {
		item := g.derefObj(paths[p], "path item")
		if item == nil {
			continue
		}
		for _, method := range httpMethods {
			raw, ok := item[method]
			if !ok {
				continue
			}
			o := g.derefObj(raw, "operation")
			if o == nil {
				continue
			}
			id, _ := o["operationId"].(string)
			if id == "" {
				id = method + " " + p
				g.warn("operation %s %s has no operationId", strings.ToUpper(method), p)
			}
			ops = append(ops, g.buildOperation(id, strings.ToUpper(method), p, item, o))
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].GoName < ops[j].GoName })
	return ops
}

func (g *generator) buildOperation(id, method, path string, item, o map[string]any) *operation {
	op := &operation{ID: id, Method: method, Path: path}
	op.GoName = g.methods.take(goName(id), "Op")
	summary, _ := o["summary"].(string)
	desc, _ := o["description"].(string)
	op.Doc = strings.TrimSpace(strings.TrimSpace(summary) + "\n\n" + strings.TrimSpace(desc))

	// Parameters: path-level ones, overridden by the operation's own (by name and location).
	type key struct{ name, in string }
	merged := map[key]map[string]any{}
	var order []key
	for _, src := range []any{item["parameters"], o["parameters"]} {
		list, _ := src.([]any)
		for _, rp := range list {
			pm := g.derefObj(rp, "parameter")
			if pm == nil {
				continue
			}
			name, _ := pm["name"].(string)
			in, _ := pm["in"].(string)
			k := key{name, in}
			if _, seen := merged[k]; !seen {
				order = append(order, k)
			}
			merged[k] = pm
		}
	}
	args := nameSet{}
	fields := nameSet{}
	byName := map[string]*param{}
	for _, k := range order {
		pm := merged[k]
		p := &param{Name: k.name, In: k.in, Doc: description(pm)}
		p.Required, _ = pm["required"].(bool)
		explode := true
		if style, _ := pm["style"].(string); style != "" && style != "form" {
			explode = false
		}
		if e, ok := pm["explode"].(bool); ok {
			explode = e
		}
		p.Explode = explode
		schema := pm["schema"]
		if schema == nil {
			if content, ok := pm["content"].(map[string]any); ok {
				for _, mt := range sortedKeys(content) {
					if c, ok := content[mt].(map[string]any); ok {
						schema = c["schema"]
						break
					}
				}
			}
		}
		switch k.in {
		case "path":
			p.Required = true
			p.Type = g.typeOf(schema, op.GoName+goName(k.name))
			p.Arg = args.take(argName(k.name), "")
			byName[k.name] = p
		case "query", "header":
			lower := strings.ToLower(k.name)
			if k.in == "header" && (lower == "accept" || lower == "content-type" || lower == "authorization") {
				continue
			}
			p.GoField = fields.take(goName(k.name), "")
			p.Type = g.typeOf(schema, op.GoName+"Params"+p.GoField)
			p.Type.Nullable = false
			p.FieldTyp = p.Type.Expr
			if p.Type.Kind == kStruct || (p.Type.Kind == kScalar && p.Type.Expr == "bool" && !p.Required) {
				p.FieldTyp = "*" + p.Type.Expr
			}
			op.Params = append(op.Params, p)
		default:
			g.warn("%s: %s parameter %q is not supported", id, k.in, k.name)
		}
	}
	// Path parameters in the order the template names them.
	for _, seg := range pathSegments(path) {
		if seg.param == "" {
			continue
		}
		p, ok := byName[seg.param]
		if !ok {
			p = &param{Name: seg.param, In: "path", Required: true, Type: tinfo{Expr: "string", Kind: kString}}
			p.Arg = args.take(argName(seg.param), "")
			byName[seg.param] = p
			g.warn("%s: path parameter %q is not declared", id, seg.param)
		}
		op.PathParams = append(op.PathParams, p)
	}
	if len(op.Params) > 0 {
		op.ParamsType = g.names.take(op.GoName+"Params", "")
	}

	// Request body.
	if rb := g.derefObj(o["requestBody"], "request body"); rb != nil {
		op.HasBody = true
		op.BodyDoc = description(rb)
		content, _ := rb["content"].(map[string]any)
		var jsonCT string
		for _, ct := range sortedKeys(content) {
			if isJSONMedia(ct) {
				if jsonCT == "" || strings.EqualFold(ct, "application/json") {
					jsonCT = ct
				}
			} else {
				op.OtherCTs = append(op.OtherCTs, ct)
			}
		}
		if jsonCT != "" {
			c, _ := content[jsonCT].(map[string]any)
			t := g.typeOf(c["schema"], op.GoName+"Body")
			op.JSONBody = &t
			op.JSONCT = jsonCT
		}
	}

	// Responses.
	responses, _ := o["responses"].(map[string]any)
	raw := false
	for _, code := range sortedKeys(responses) {
		if !(len(code) == 3 && code[0] == '2') {
			continue
		}
		r := g.derefObj(responses[code], "response")
		if r == nil {
			continue
		}
		content, _ := r["content"].(map[string]any)
		var jsonCTs []string
		for _, ct := range sortedKeys(content) {
			if isJSONMedia(ct) {
				jsonCTs = append(jsonCTs, ct)
			} else {
				raw = true
			}
		}
		// application/json first, then the others in order.
		sort.SliceStable(jsonCTs, func(i, j int) bool {
			return strings.EqualFold(jsonCTs[i], "application/json") && !strings.EqualFold(jsonCTs[j], "application/json")
		})
		if len(jsonCTs) == 0 {
			op.Statuses = append(op.Statuses, statusResult{Code: strings.ToUpper(code), Doc: description(r)})
		}
		var seenTypes []string
		for _, ct := range jsonCTs {
			c, _ := content[ct].(map[string]any)
			var t tinfo
			if c["schema"] == nil {
				t = rawType
			} else {
				t = g.typeOf(c["schema"], op.GoName+"Result"+strings.ToUpper(code))
			}
			dup := false
			for _, e := range seenTypes {
				if e == t.Expr {
					dup = true
				}
			}
			if dup {
				continue
			}
			seenTypes = append(seenTypes, t.Expr)
			tt := t
			op.Statuses = append(op.Statuses, statusResult{Code: strings.ToUpper(code), Doc: description(r), Type: &tt, Media: ct})
		}
		if d := description(r); d != "" {
			op.SuccessDocs = append(op.SuccessDocs, strings.ToUpper(code)+": "+d)
		}
	}
	distinct := map[string]tinfo{}
	for _, s := range op.Statuses {
		if s.Type != nil {
			distinct[s.Type.Expr] = *s.Type
		}
	}
	switch {
	case raw || len(op.Statuses) == 0:
		op.ResultKind = resRaw
	case len(distinct) == 0:
		op.ResultKind = resNone
	case len(distinct) == 1:
		op.ResultKind = resSingle
		for _, t := range distinct {
			op.Single = t
		}
	default:
		op.ResultKind = resMulti
		op.MultiType = g.names.take(op.GoName+"Response", "")
		perCode := map[string]int{}
		for _, s := range op.Statuses {
			if s.Type != nil {
				perCode[s.Code]++
			}
		}
		for i := range op.Statuses {
			s := &op.Statuses[i]
			if s.Type == nil {
				continue
			}
			s.Field = "JSON" + s.Code
			if perCode[s.Code] > 1 {
				s.Field = mediaLabel(s.Media) + s.Code
			}
		}
	}
	return op
}

// mediaLabel names a JSON media type in Go: JSON, GeoJSON, MergePatchJSON, ...
func mediaLabel(mt string) string {
	base := strings.ToLower(strings.TrimSpace(strings.SplitN(mt, ";", 2)[0]))
	if base == "application/json" || base == "text/json" {
		return "JSON"
	}
	sub := base
	if i := strings.IndexByte(base, '/'); i >= 0 {
		sub = base[i+1:]
	}
	return goName(strings.TrimSuffix(sub, "+json")) + "JSON"
}

type segment struct {
	text  string
	param string
}

func pathSegments(p string) []segment {
	var out []segment
	for len(p) > 0 {
		i := strings.IndexByte(p, '{')
		if i < 0 {
			out = append(out, segment{text: p})
			break
		}
		j := strings.IndexByte(p[i:], '}')
		if j < 0 {
			out = append(out, segment{text: p})
			break
		}
		if i > 0 {
			out = append(out, segment{text: p[:i]})
		}
		out = append(out, segment{param: p[i+1 : i+j]})
		p = p[i+j+1:]
	}
	return out
}

// resultSig is the Go result list of an operation's methods.
func (op *operation) resultSig() (sig string, zero string) {
	switch op.ResultKind {
	case resNone:
		return "error", ""
	case resRaw:
		return "(*http.Response, error)", "nil, "
	case resMulti:
		return "(*" + op.MultiType + ", error)", "nil, "
	default:
		if op.Single.Kind == kNilable {
			return "(" + op.Single.Expr + ", error)", "nil, "
		}
		return "(*" + op.Single.Expr + ", error)", "nil, "
	}
}

func (op *operation) argList() (decl string, call string) {
	var d, c []string
	for _, p := range op.PathParams {
		d = append(d, p.Arg+" "+p.Type.Expr)
		c = append(c, p.Arg)
	}
	if op.ParamsType != "" {
		d = append(d, "params *"+op.ParamsType)
		c = append(c, "params")
	}
	if len(d) == 0 {
		return "", ""
	}
	return ", " + strings.Join(d, ", "), ", " + strings.Join(c, ", ")
}

func pathArgExpr(p *param) string {
	switch {
	case p.Type.Kind == kString && p.Type.Expr == "string":
		return "url.PathEscape(" + p.Arg + ")"
	case p.Type.Kind == kString:
		return "url.PathEscape(string(" + p.Arg + "))"
	case p.Type.Expr == "int32" || p.Type.Expr == "int64":
		return "strconv.FormatInt(int64(" + p.Arg + "), 10)"
	case p.Type.Expr == "float64":
		return "strconv.FormatFloat(" + p.Arg + ", 'f', -1, 64)"
	case p.Type.Expr == "bool":
		return "strconv.FormatBool(" + p.Arg + ")"
	}
	return "url.PathEscape(fmt.Sprint(" + p.Arg + "))"
}

func (op *operation) pathExpr() string {
	var parts []string
	for _, s := range pathSegments(op.Path) {
		if s.param == "" {
			parts = append(parts, strconv.Quote(s.text))
			continue
		}
		for _, p := range op.PathParams {
			if p.Name == s.param {
				parts = append(parts, pathArgExpr(p))
				break
			}
		}
	}
	if len(parts) == 0 {
		return `"/"`
	}
	return strings.Join(parts, " + ")
}

func (g *generator) emitOperations(ops []*operation) string {
	var b strings.Builder
	for _, op := range ops {
		if op.ParamsType != "" {
			g.emitParams(&b, op)
		}
		if op.ResultKind == resMulti {
			g.emitMulti(&b, op)
		}
		g.emitMethods(&b, op)
	}
	return b.String()
}

func (g *generator) emitParams(b *strings.Builder, op *operation) {
	fmt.Fprintf(b, "// %s holds the query and header parameters of %s. Zero values are not sent\n// unless the parameter is required.\n", op.ParamsType, op.GoName)
	fmt.Fprintf(b, "type %s struct {\n", op.ParamsType)
	for _, p := range op.Params {
		doc := p.Doc
		where := "query parameter"
		if p.In == "header" {
			where = "header"
		}
		note := fmt.Sprintf("%s (%s %q", p.GoField, where, p.Name)
		if p.Required {
			note += ", required"
		}
		note += ")"
		if doc != "" {
			note += ": " + doc
		}
		b.WriteString(comment("\t", note))
		fmt.Fprintf(b, "\t%s %s\n", p.GoField, p.FieldTyp)
	}
	b.WriteString("}\n\n")
	fmt.Fprintf(b, "func (p *%s) encode(req *apiRequest) {\n\tif p == nil {\n\t\treturn\n\t}\n", op.ParamsType)
	for _, p := range op.Params {
		set := "req.setQuery"
		add := "req.addQuery"
		if p.In == "header" {
			set = "req.setHeader"
			add = "req.addHeader"
		}
		v := "p." + p.GoField
		name := strconv.Quote(p.Name)
		t := p.Type
		switch {
		case t.Kind == kString:
			conv := v
			if t.Expr != "string" {
				conv = "string(" + v + ")"
			}
			if p.Required {
				fmt.Fprintf(b, "\t%s(%s, %s)\n", set, name, conv)
			} else {
				fmt.Fprintf(b, "\tif %s != \"\" {\n\t\t%s(%s, %s)\n\t}\n", v, set, name, conv)
			}
		case t.Expr == "int32" || t.Expr == "int64":
			cond := v + " != 0"
			if p.Required {
				cond = "true"
			}
			fmt.Fprintf(b, "\tif %s {\n\t\t%s(%s, strconv.FormatInt(int64(%s), 10))\n\t}\n", cond, set, name, v)
		case t.Expr == "float64":
			cond := v + " != 0"
			if p.Required {
				cond = "true"
			}
			fmt.Fprintf(b, "\tif %s {\n\t\t%s(%s, strconv.FormatFloat(%s, 'f', -1, 64))\n\t}\n", cond, set, name, v)
		case t.Expr == "bool":
			if p.Required {
				fmt.Fprintf(b, "\t%s(%s, strconv.FormatBool(%s))\n", set, name, v)
			} else {
				fmt.Fprintf(b, "\tif %s != nil {\n\t\t%s(%s, strconv.FormatBool(*%s))\n\t}\n", v, set, name, v)
			}
		case t.Expr == "time.Time":
			fmt.Fprintf(b, "\tif !%s.IsZero() {\n\t\t%s(%s, %s.Format(time.RFC3339Nano))\n\t}\n", v, set, name, v)
		case strings.HasPrefix(t.Expr, "[]") && t.Expr != "[]byte":
			if p.Explode {
				fmt.Fprintf(b, "\tfor _, e := range %s {\n\t\t%s(%s, fmt.Sprint(e))\n\t}\n", v, add, name)
			} else {
				fmt.Fprintf(b, "\tif len(%s) > 0 {\n\t\tparts := make([]string, 0, len(%s))\n\t\tfor _, e := range %s {\n\t\t\tparts = append(parts, fmt.Sprint(e))\n\t\t}\n\t\t%s(%s, strings.Join(parts, \",\"))\n\t}\n", v, v, v, set, name)
			}
		default:
			fmt.Fprintf(b, "\tif %s != nil {\n\t\tif b, err := json.Marshal(%s); err == nil {\n\t\t\t%s(%s, string(b))\n\t\t}\n\t}\n", v, v, set, name)
		}
	}
	b.WriteString("}\n\n")
}

func (g *generator) emitMulti(b *strings.Builder, op *operation) {
	fmt.Fprintf(b, "// %s is the answer of %s: StatusCode says which body field is set.\n", op.MultiType, op.GoName)
	fmt.Fprintf(b, "type %s struct {\n\tStatusCode int\n\tHeader     http.Header\n", op.MultiType)
	for _, s := range op.Statuses {
		if s.Field == "" {
			continue
		}
		b.WriteString(comment("\t", s.Field+": "+s.Doc))
		typ := s.Type.Expr
		if s.Type.Kind != kNilable {
			typ = "*" + typ
		}
		fmt.Fprintf(b, "\t%s %s\n", s.Field, typ)
	}
	b.WriteString("}\n\n")
	fmt.Fprintf(b, "// Value returns the decoded body, whichever status it came with (nil when there was none).\nfunc (r *%s) Value() any {\n\tif r == nil {\n\t\treturn nil\n\t}\n", op.MultiType)
	for _, s := range op.Statuses {
		if s.Field == "" {
			continue
		}
		fmt.Fprintf(b, "\tif r.%s != nil {\n\t\treturn r.%s\n\t}\n", s.Field, s.Field)
	}
	b.WriteString("\treturn nil\n}\n\n")
}

func (g *generator) methodDoc(b *strings.Builder, op *operation, name, lead string) {
	text := fmt.Sprintf("%s %s (%s %s, operation %s).", name, lead, op.Method, op.Path, op.ID)
	if op.Doc != "" {
		text += "\n\n" + op.Doc
	}
	if op.BodyDoc != "" && name == op.GoName {
		text += "\n\nBody: " + op.BodyDoc
	}
	if len(op.SuccessDocs) > 0 && name == op.GoName {
		text += "\n\nAnswers " + strings.Join(op.SuccessDocs, "; ")
	}
	b.WriteString(comment("", text))
}

func (g *generator) emitMethods(b *strings.Builder, op *operation) {
	sig, zero := op.resultSig()
	argDecl, argCall := op.argList()
	errRet := "return " + zero + "err"
	if !op.HasBody {
		g.methodDoc(b, op, op.GoName, "calls the API")
		fmt.Fprintf(b, "func (c *Client) %s(ctx context.Context%s, opts ...RequestOption) %s {\n", op.GoName, argDecl, sig)
		fmt.Fprintf(b, "\treq := &apiRequest{method: %q, path: %s}\n", op.Method, op.pathExpr())
		if op.ParamsType != "" {
			b.WriteString("\tparams.encode(req)\n")
		}
		g.emitCall(b, op)
		b.WriteString("}\n\n")
		return
	}
	withBody := g.methods.take(op.GoName+"WithBody", "")
	// The typed variant.
	switch {
	case op.JSONBody != nil:
		bt := op.JSONBody.Expr
		if op.JSONBody.Kind == kNilable && (bt == "map[string]any" || bt == "json.RawMessage") {
			bt = "any"
		}
		g.methodDoc(b, op, op.GoName, "sends body as "+op.JSONCT)
		fmt.Fprintf(b, "func (c *Client) %s(ctx context.Context%s, body %s, opts ...RequestOption) %s {\n", op.GoName, argDecl, bt, sig)
		fmt.Fprintf(b, "\tb, err := json.Marshal(body)\n\tif err != nil {\n\t\t%s\n\t}\n", errRet)
		fmt.Fprintf(b, "\treturn c.%s(ctx%s, %q, bytes.NewReader(b), opts...)\n}\n\n", withBody, argCall, op.JSONCT)
	case len(op.OtherCTs) == 1 && !strings.HasPrefix(strings.ToLower(op.OtherCTs[0]), "multipart/"):
		g.methodDoc(b, op, op.GoName, "streams body as "+op.OtherCTs[0])
		fmt.Fprintf(b, "func (c *Client) %s(ctx context.Context%s, body io.Reader, opts ...RequestOption) %s {\n", op.GoName, argDecl, sig)
		fmt.Fprintf(b, "\treturn c.%s(ctx%s, %q, body, opts...)\n}\n\n", withBody, argCall, op.OtherCTs[0])
	default:
		g.methodDoc(b, op, op.GoName, "streams body with the given content type ("+strings.Join(op.OtherCTs, ", ")+")")
		fmt.Fprintf(b, "func (c *Client) %s(ctx context.Context%s, contentType string, body io.Reader, opts ...RequestOption) %s {\n", op.GoName, argDecl, sig)
		fmt.Fprintf(b, "\treturn c.%s(ctx%s, contentType, body, opts...)\n}\n\n", withBody, argCall)
	}
	// The raw-body variant every operation with a body has.
	fmt.Fprintf(b, "// %s is %s with any body: contentType names it and body is streamed as it is\n// (retried after a 429 or 503 only when it is an io.Seeker).\n", withBody, op.GoName)
	fmt.Fprintf(b, "func (c *Client) %s(ctx context.Context%s, contentType string, body io.Reader, opts ...RequestOption) %s {\n", withBody, argDecl, sig)
	fmt.Fprintf(b, "\treq := &apiRequest{method: %q, path: %s, body: body, contentType: contentType}\n", op.Method, op.pathExpr())
	if op.ParamsType != "" {
		b.WriteString("\tparams.encode(req)\n")
	}
	g.emitCall(b, op)
	b.WriteString("}\n\n")
}

func (g *generator) emitCall(b *strings.Builder, op *operation) {
	switch op.ResultKind {
	case resNone:
		b.WriteString("\t_, err := c.doJSON(ctx, req, opts, nil)\n\treturn err\n")
	case resRaw:
		b.WriteString("\treturn c.doRaw(ctx, req, opts)\n")
	case resSingle:
		if op.Single.Kind == kNilable {
			fmt.Fprintf(b, "\tvar out %s\n\tif _, err := c.doJSON(ctx, req, opts, &out); err != nil {\n\t\treturn nil, err\n\t}\n\treturn out, nil\n", op.Single.Expr)
		} else {
			fmt.Fprintf(b, "\tvar out %s\n\tok, err := c.doJSON(ctx, req, opts, &out)\n\tif err != nil || !ok {\n\t\treturn nil, err\n\t}\n\treturn &out, nil\n", op.Single.Expr)
		}
	case resMulti:
		b.WriteString("\tresp, err := c.doRaw(ctx, req, opts)\n\tif err != nil {\n\t\treturn nil, err\n\t}\n\tdefer resp.Body.Close()\n")
		fmt.Fprintf(b, "\tout := &%s{StatusCode: resp.StatusCode, Header: resp.Header}\n", op.MultiType)
		// The typed answers by status, in order; a status may have several media types.
		var codes []string
		byCode := map[string][]*statusResult{}
		for i := range op.Statuses {
			s := &op.Statuses[i]
			if s.Field == "" {
				continue
			}
			if _, ok := byCode[s.Code]; !ok {
				codes = append(codes, s.Code)
			}
			byCode[s.Code] = append(byCode[s.Code], s)
		}
		b.WriteString("\tswitch {\n")
		var wildcard string
		for _, code := range codes {
			if strings.HasSuffix(code, "XX") {
				wildcard = code
				continue
			}
			fmt.Fprintf(b, "\tcase resp.StatusCode == %s:\n", code)
			g.emitDecodeMedia(b, byCode[code])
		}
		if wildcard != "" {
			fmt.Fprintf(b, "\tcase resp.StatusCode/100 == %c:\n", wildcard[0])
			g.emitDecodeMedia(b, byCode[wildcard])
		}
		b.WriteString("\t}\n\treturn out, nil\n")
	}
}

// emitDecodeMedia decodes the answer into the field of its media type (the first one when the
// Content-Type names none of them).
func (g *generator) emitDecodeMedia(b *strings.Builder, list []*statusResult) {
	if len(list) == 1 {
		g.emitDecodeInto(b, list[0])
		return
	}
	b.WriteString("\t\tswitch mediaType(resp) {\n")
	for i, s := range list {
		if i == 0 {
			continue
		}
		base := strings.ToLower(strings.TrimSpace(strings.SplitN(s.Media, ";", 2)[0]))
		fmt.Fprintf(b, "\t\tcase %q:\n", base)
		g.emitDecodeInto(b, s)
	}
	b.WriteString("\t\tdefault:\n")
	g.emitDecodeInto(b, list[0])
	b.WriteString("\t\t}\n")
}

func (g *generator) emitDecodeInto(b *strings.Builder, s *statusResult) {
	fmt.Fprintf(b, "\t\tvar v %s\n\t\tif err := decodeBody(resp, &v); err != nil {\n\t\t\treturn nil, err\n\t\t}\n", s.Type.Expr)
	if s.Type.Kind == kNilable {
		fmt.Fprintf(b, "\t\tout.%s = v\n", s.Field)
	} else {
		fmt.Fprintf(b, "\t\tout.%s = &v\n", s.Field)
	}
}
