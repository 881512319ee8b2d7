package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// kind says how a Go type behaves as an optional or nullable field.
type kind int

const (
	kNilable kind = iota // map, slice, json.RawMessage, any: nil is "absent"
	kString              // string or a string enum: "" is "absent"
	kScalar              // numbers and booleans: zero is meaningful, optional means pointer
	kTime                // time.Time: its zero value is not omitted, optional means pointer
	kStruct              // structs and unions: optional means pointer
)

// tinfo is the Go type of a schema.
type tinfo struct {
	Expr     string // Go type expression, never a pointer
	Kind     kind
	Nullable bool   // the schema allows null
	Ref      string // the component schema it names, when it does
}

var rawType = tinfo{Expr: "json.RawMessage", Kind: kNilable}

type field struct {
	GoName   string
	JSONName string
	Doc      string
	Type     string // final Go type, pointer included
	Omit     bool
	Target   string // a named struct type held by value (for cycle checks)
	Required bool
}

type structDecl struct {
	Origin string // the component schema, "" for an inline one
	Name   string
	Doc    string
	Fields []*field
	Extra  *tinfo // additionalProperties, when stated
}

type enumDecl struct {
	Origin string // the component schema, "" for an inline one
	Name   string
	Doc    string
	Values []string
}

type variant struct {
	Label string
	Type  tinfo
	Disc  []string // discriminator values that select it
}

type unionDecl struct {
	Origin   string // the component schema, "" for an inline one
	Name     string
	Doc      string
	Variants []variant
	DiscProp string
}

type aliasDecl struct {
	Origin string // the component schema, "" for an inline one
	Name   string
	Doc    string
	Target string
}

type generator struct {
	doc        map[string]any
	schemas    map[string]any
	names      nameSet           // type names in use (hand-written ones included)
	methods    nameSet           // Client method names in use
	compNames  map[string]string // component schema name → Go name
	compInfo   map[string]*tinfo
	structs    map[string]*structDecl
	enums      map[string]*enumDecl
	unions     map[string]*unionDecl
	aliases    map[string]*aliasDecl
	refVisits  map[string]bool
	warnings   []string
	handTypes  map[string]bool
	handMethod map[string]bool
}

func newGenerator(doc map[string]any, handTypes, handMethods map[string]bool) *generator {
	g := &generator{
		doc:        doc,
		names:      nameSet{},
		methods:    nameSet{},
		compNames:  map[string]string{},
		compInfo:   map[string]*tinfo{},
		structs:    map[string]*structDecl{},
		enums:      map[string]*enumDecl{},
		unions:     map[string]*unionDecl{},
		aliases:    map[string]*aliasDecl{},
		refVisits:  map[string]bool{},
		handTypes:  handTypes,
		handMethod: handMethods,
	}
	for n := range handTypes {
		g.names[n] = true
	}
	for n := range handMethods {
		g.methods[n] = true
	}
	comps, _ := doc["components"].(map[string]any)
	g.schemas, _ = comps["schemas"].(map[string]any)
	if g.schemas == nil {
		g.schemas = map[string]any{}
	}
	for _, name := range sortedKeys(g.schemas) {
		g.compNames[name] = g.names.take(goName(name), "Schema")
	}
	return g
}

func (g *generator) warn(format string, args ...any) {
	g.warnings = append(g.warnings, fmt.Sprintf(format, args...))
}

// resolvePointer follows a local JSON pointer ("#/components/schemas/X").
func (g *generator) resolvePointer(ref string) (any, bool) {
	if !strings.HasPrefix(ref, "#") {
		return nil, false
	}
	frag := ref[1:]
	if u, err := url.PathUnescape(frag); err == nil {
		frag = u
	}
	if frag == "" {
		return g.doc, true
	}
	if !strings.HasPrefix(frag, "/") {
		return nil, false
	}
	var cur any = g.doc
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// componentOf says which component schema a $ref names directly, if any.
func componentOf(ref string) (string, bool) {
	const prefix = "#/components/schemas/"
	if !strings.HasPrefix(ref, prefix) {
		return "", false
	}
	name := ref[len(prefix):]
	if u, err := url.PathUnescape(name); err == nil {
		name = u
	}
	if strings.Contains(name, "/") {
		return "", false
	}
	return strings.ReplaceAll(strings.ReplaceAll(name, "~1", "/"), "~0", "~"), true
}

// deref follows $ref chains (any JSON pointer) to a schema object.
func (g *generator) deref(s any) map[string]any {
	seen := map[string]bool{}
	for {
		m, ok := s.(map[string]any)
		if !ok {
			return nil
		}
		ref, ok := m["$ref"].(string)
		if !ok || seen[ref] {
			return m
		}
		seen[ref] = true
		t, ok := g.resolvePointer(ref)
		if !ok {
			g.warn("unresolved $ref %s", ref)
			return nil
		}
		s = t
	}
}

// schemaTypes returns the `type` keyword as a list.
func schemaTypes(m map[string]any) []string {
	switch t := m["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func hasType(m map[string]any, t string) bool {
	for _, x := range schemaTypes(m) {
		if x == t {
			return true
		}
	}
	return false
}

// isConstraintOnly: a subschema that adds rules but no shape (e.g. {"required": ["a"]}).
func isConstraintOnly(s any) bool {
	m, ok := s.(map[string]any)
	if !ok {
		return false
	}
	for _, k := range []string{"$ref", "type", "properties", "items", "enum", "const", "oneOf", "anyOf", "allOf", "additionalProperties"} {
		if _, ok := m[k]; ok {
			return false
		}
	}
	return true
}

// isNullSchema: {"type": "null"}, {"const": null} or {"enum": [null]}.
func isNullSchema(s any) bool {
	m, ok := s.(map[string]any)
	if !ok {
		return false
	}
	ts := schemaTypes(m)
	if len(ts) == 1 && ts[0] == "null" {
		return true
	}
	if c, ok := m["const"]; ok && c == nil {
		return true
	}
	if e, ok := m["enum"].([]any); ok && len(e) == 1 && e[0] == nil {
		return true
	}
	return false
}

// unionMembers returns the shape-giving members of oneOf/anyOf and whether null is allowed.
func unionMembers(m map[string]any) (members []any, nullable bool, present bool) {
	for _, key := range []string{"oneOf", "anyOf"} {
		list, ok := m[key].([]any)
		if !ok {
			continue
		}
		for _, s := range list {
			if isNullSchema(s) {
				nullable = true
				present = true
				continue
			}
			if isConstraintOnly(s) {
				continue
			}
			present = true
			members = append(members, s)
		}
	}
	return members, nullable, present
}

// objectProps gathers the properties of an object schema and its allOf members.
func (g *generator) objectProps(s any, depth int) (props map[string]any, required map[string]bool, extra any, isObject bool) {
	props = map[string]any{}
	required = map[string]bool{}
	m := g.deref(s)
	if m == nil || depth > 32 {
		return props, required, nil, false
	}
	if all, ok := m["allOf"].([]any); ok {
		for _, member := range all {
			p, r, e, obj := g.objectProps(member, depth+1)
			if !obj {
				continue
			}
			isObject = true
			for k, v := range p {
				props[k] = v
			}
			for k := range r {
				required[k] = true
			}
			if e != nil {
				extra = e
			}
		}
	}
	if p, ok := m["properties"].(map[string]any); ok {
		isObject = true
		for k, v := range p {
			props[k] = v
		}
	}
	if r, ok := m["required"].([]any); ok {
		for _, x := range r {
			if s, ok := x.(string); ok {
				required[s] = true
			}
		}
	}
	if ap, ok := m["additionalProperties"]; ok {
		if b, isBool := ap.(bool); !isBool || b {
			extra = ap
		}
	}
	if hasType(m, "object") {
		isObject = true
	}
	return props, required, extra, isObject
}

type shape int

const (
	shapeOther shape = iota
	shapeStruct
	shapeUnion
	shapeEnum
)

func (g *generator) shapeOf(s any) shape {
	m, ok := s.(map[string]any)
	if !ok {
		return shapeOther
	}
	if _, ok := m["$ref"]; ok {
		return shapeOther
	}
	if members, _, _ := unionMembers(m); len(members) >= 2 {
		return shapeUnion
	}
	if members, _, present := unionMembers(m); present && len(members) == 1 && len(schemaTypes(m)) == 0 && m["properties"] == nil && m["allOf"] == nil {
		return shapeOther
	}
	if vals, ok := stringEnum(m); ok && len(vals) > 0 {
		return shapeEnum
	}
	props, _, _, isObj := g.objectProps(m, 0)
	if isObj && len(props) > 0 {
		return shapeStruct
	}
	return shapeOther
}

// stringEnum returns the string values of an enum (null aside) when every value is a string.
func stringEnum(m map[string]any) ([]string, bool) {
	e, ok := m["enum"].([]any)
	if !ok {
		return nil, false
	}
	var out []string
	for _, v := range e {
		if v == nil {
			continue
		}
		s, ok := v.(string)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

func enumHasNull(m map[string]any) bool {
	e, _ := m["enum"].([]any)
	for _, v := range e {
		if v == nil {
			return true
		}
	}
	return false
}

// componentType is the Go type of a component schema, generating its declaration once.
func (g *generator) componentType(name string) tinfo {
	if t, ok := g.compInfo[name]; ok {
		return *t
	}
	s, ok := g.schemas[name]
	if !ok {
		g.warn("no component schema %q", name)
		return rawType
	}
	gn := g.compNames[name]
	m, _ := s.(map[string]any)
	switch g.shapeOf(s) {
	case shapeStruct:
		info := &tinfo{Expr: gn, Kind: kStruct, Ref: name}
		g.compInfo[name] = info
		g.buildStruct(gn, m)
		g.structs[gn].Origin = name
		return *info
	case shapeUnion:
		_, nullable, _ := unionMembers(m)
		info := &tinfo{Expr: gn, Kind: kStruct, Nullable: nullable || hasType(m, "null"), Ref: name}
		g.compInfo[name] = info
		g.buildUnion(gn, m)
		g.unions[gn].Origin = name
		return *info
	case shapeEnum:
		info := &tinfo{Expr: gn, Kind: kString, Nullable: enumHasNull(m) || hasType(m, "null"), Ref: name}
		g.compInfo[name] = info
		g.buildEnum(gn, m)
		g.enums[gn].Origin = name
		return *info
	}
	// Anything else is an alias of the Go type it maps to. A placeholder breaks cycles.
	g.compInfo[name] = &rawType
	t := g.typeOf(s, gn)
	g.aliases[gn] = &aliasDecl{Origin: name, Name: gn, Doc: description(m), Target: t.Expr}
	info := &tinfo{Expr: gn, Kind: t.Kind, Nullable: t.Nullable, Ref: name}
	g.compInfo[name] = info
	return *info
}

func description(m map[string]any) string {
	if m == nil {
		return ""
	}
	d, _ := m["description"].(string)
	if d == "" {
		d, _ = m["title"].(string)
	}
	return d
}

// typeOf maps a schema to a Go type; ctx names any type it has to declare.
func (g *generator) typeOf(s any, ctx string) tinfo {
	switch b := s.(type) {
	case bool:
		_ = b
		return rawType
	case nil:
		return rawType
	}
	m, ok := s.(map[string]any)
	if !ok {
		return rawType
	}
	if ref, ok := m["$ref"].(string); ok {
		if name, ok := componentOf(ref); ok {
			if _, exists := g.schemas[name]; exists {
				t := g.componentType(name)
				if hasType(m, "null") {
					t.Nullable = true
				}
				return t
			}
		}
		if g.refVisits[ref] {
			return rawType
		}
		target, ok := g.resolvePointer(ref)
		if !ok {
			g.warn("unresolved $ref %s", ref)
			return rawType
		}
		g.refVisits[ref] = true
		defer delete(g.refVisits, ref)
		return g.typeOf(target, ctx)
	}
	if c, ok := m["const"]; ok {
		return constType(c)
	}
	switch g.shapeOf(m) {
	case shapeUnion:
		name := g.names.take(ctx, "")
		_, nullable, _ := unionMembers(m)
		g.buildUnion(name, m)
		return tinfo{Expr: name, Kind: kStruct, Nullable: nullable || hasType(m, "null")}
	case shapeEnum:
		name := g.names.take(ctx, "")
		g.buildEnum(name, m)
		return tinfo{Expr: name, Kind: kString, Nullable: enumHasNull(m) || hasType(m, "null")}
	case shapeStruct:
		name := g.names.take(ctx, "")
		g.buildStruct(name, m)
		return tinfo{Expr: name, Kind: kStruct, Nullable: hasType(m, "null")}
	}
	if members, nullable, present := unionMembers(m); present {
		if len(members) == 1 {
			t := g.typeOf(members[0], ctx)
			t.Nullable = t.Nullable || nullable
			return t
		}
		return tinfo{Expr: "json.RawMessage", Kind: kNilable, Nullable: nullable}
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		// Non-string enums: the type of their values.
		t := constType(firstNonNil(e))
		for _, v := range e {
			if v != nil && constType(v).Expr != t.Expr {
				return rawType
			}
		}
		t.Nullable = enumHasNull(m)
		return t
	}
	if all, ok := m["allOf"].([]any); ok {
		// allOf without object members: the first member that gives a shape.
		for _, member := range all {
			if !isConstraintOnly(member) {
				t := g.typeOf(member, ctx)
				t.Nullable = t.Nullable || hasType(m, "null")
				return t
			}
		}
	}
	types := schemaTypes(m)
	nullable := false
	var nonNull []string
	for _, t := range types {
		if t == "null" {
			nullable = true
		} else {
			nonNull = append(nonNull, t)
		}
	}
	if len(nonNull) == 0 {
		switch {
		case m["properties"] != nil || m["additionalProperties"] != nil:
			nonNull = []string{"object"}
		case m["items"] != nil:
			nonNull = []string{"array"}
		}
	}
	if len(nonNull) != 1 {
		return tinfo{Expr: "json.RawMessage", Kind: kNilable, Nullable: nullable}
	}
	var t tinfo
	switch nonNull[0] {
	case "string":
		format, _ := m["format"].(string)
		switch format {
		case "date-time":
			t = tinfo{Expr: "time.Time", Kind: kTime}
		case "binary", "byte":
			t = tinfo{Expr: "[]byte", Kind: kNilable}
		default:
			t = tinfo{Expr: "string", Kind: kString}
		}
	case "integer":
		format, _ := m["format"].(string)
		switch format {
		case "int32":
			t = tinfo{Expr: "int32", Kind: kScalar}
		default:
			t = tinfo{Expr: "int64", Kind: kScalar}
		}
	case "number":
		t = tinfo{Expr: "float64", Kind: kScalar}
	case "boolean":
		t = tinfo{Expr: "bool", Kind: kScalar}
	case "array":
		items, ok := m["items"]
		if !ok {
			t = tinfo{Expr: "[]json.RawMessage", Kind: kNilable}
			break
		}
		it := g.typeOf(items, ctx+"Item")
		elem := it.Expr
		if it.Nullable && it.Kind != kNilable {
			elem = "*" + elem
		}
		t = tinfo{Expr: "[]" + elem, Kind: kNilable}
	case "object":
		ap, hasAP := m["additionalProperties"]
		if hasAP {
			if b, isBool := ap.(bool); !isBool {
				vt := g.typeOf(ap, ctx+"Value")
				elem := vt.Expr
				if vt.Nullable && vt.Kind != kNilable {
					elem = "*" + elem
				}
				t = tinfo{Expr: "map[string]" + elem, Kind: kNilable}
				break
			} else if !b {
				t = tinfo{Expr: "struct{}", Kind: kStruct}
				break
			}
		}
		t = tinfo{Expr: "map[string]any", Kind: kNilable}
	default:
		t = rawType
	}
	t.Nullable = nullable
	return t
}

func firstNonNil(vs []any) any {
	for _, v := range vs {
		if v != nil {
			return v
		}
	}
	return nil
}

func constType(c any) tinfo {
	switch v := c.(type) {
	case string:
		return tinfo{Expr: "string", Kind: kString}
	case bool:
		return tinfo{Expr: "bool", Kind: kScalar}
	case json.Number:
		if _, err := v.Int64(); err == nil {
			return tinfo{Expr: "int64", Kind: kScalar}
		}
		return tinfo{Expr: "float64", Kind: kScalar}
	case float64:
		return tinfo{Expr: "float64", Kind: kScalar}
	case nil:
		return tinfo{Expr: "json.RawMessage", Kind: kNilable, Nullable: true}
	}
	return rawType
}

// fieldType decides pointer and omitempty for a property of the given type.
func fieldType(t tinfo, required bool) (typ string, omit bool, byValueStruct bool) {
	omit = !required
	switch t.Kind {
	case kNilable:
		return t.Expr, omit, false
	case kString:
		if t.Nullable {
			return "*" + t.Expr, omit, false
		}
		return t.Expr, omit, false
	default: // kScalar, kTime, kStruct
		if required && !t.Nullable {
			return t.Expr, omit, t.Kind == kStruct
		}
		return "*" + t.Expr, omit, false
	}
}

func (g *generator) buildStruct(name string, m map[string]any) {
	d := &structDecl{Name: name, Doc: description(m)}
	g.structs[name] = d
	props, required, extra, _ := g.objectProps(m, 0)
	used := nameSet{}
	if extra != nil {
		used["AdditionalProperties"] = true
	}
	for _, pn := range sortedKeys(props) {
		ps := props[pn]
		fn := used.take(goName(pn), "")
		t := g.typeOf(ps, name+fn)
		typ, omit, byValue := fieldType(t, required[pn])
		pm, _ := ps.(map[string]any)
		f := &field{GoName: fn, JSONName: pn, Doc: description(pm), Type: typ, Omit: omit, Required: required[pn]}
		if byValue {
			f.Target = t.Expr
		}
		d.Fields = append(d.Fields, f)
	}
	if extra != nil {
		var et tinfo
		if b, ok := extra.(bool); ok && b {
			et = tinfo{Expr: "any", Kind: kNilable}
		} else {
			et = g.typeOf(extra, name+"Value")
			if et.Nullable && et.Kind != kNilable {
				et.Expr = "*" + et.Expr
			}
		}
		d.Extra = &et
	}
}

func (g *generator) buildEnum(name string, m map[string]any) {
	vals, _ := stringEnum(m)
	g.enums[name] = &enumDecl{Name: name, Doc: description(m), Values: vals}
}

func (g *generator) buildUnion(name string, m map[string]any) {
	d := &unionDecl{Name: name, Doc: description(m)}
	g.unions[name] = d
	members, _, _ := unionMembers(m)
	var discProp string
	mapping := map[string]string{} // ref → values
	valuesByRef := map[string][]string{}
	if disc, ok := m["discriminator"].(map[string]any); ok {
		discProp, _ = disc["propertyName"].(string)
		if mp, ok := disc["mapping"].(map[string]any); ok {
			for _, v := range sortedKeys(mp) {
				ref, _ := mp[v].(string)
				if !strings.HasPrefix(ref, "#") {
					ref = "#/components/schemas/" + ref
				}
				valuesByRef[ref] = append(valuesByRef[ref], v)
				mapping[ref] = v
			}
		}
	}
	d.DiscProp = discProp
	labels := nameSet{}
	for i, member := range members {
		t := g.typeOf(member, fmt.Sprintf("%sOption%d", name, i+1))
		label := labels.take(variantLabel(t), "")
		v := variant{Label: label, Type: t}
		if discProp != "" {
			mm, _ := member.(map[string]any)
			ref, _ := mm["$ref"].(string)
			if vals, ok := valuesByRef[ref]; ok {
				v.Disc = vals
			} else if c := g.constOfProp(member, discProp); c != "" {
				v.Disc = []string{c}
			} else if comp, ok := componentOf(ref); ok {
				v.Disc = []string{comp}
			}
		}
		d.Variants = append(d.Variants, v)
	}
}

// constOfProp finds the constant a variant gives its discriminating property.
func (g *generator) constOfProp(s any, prop string) string {
	props, _, _, _ := g.objectProps(s, 0)
	p := g.deref(props[prop])
	if p == nil {
		return ""
	}
	if c, ok := p["const"].(string); ok {
		return c
	}
	if vals, ok := stringEnum(p); ok && len(vals) == 1 {
		return vals[0]
	}
	return ""
}

func variantLabel(t tinfo) string {
	e := t.Expr
	switch {
	case strings.HasPrefix(e, "[]"):
		return variantLabel(tinfo{Expr: strings.TrimPrefix(e[2:], "*")}) + "List"
	case strings.HasPrefix(e, "map[string]"):
		inner := e[len("map[string]"):]
		if inner == "any" {
			return "Object"
		}
		return variantLabel(tinfo{Expr: strings.TrimPrefix(inner, "*")}) + "Map"
	}
	switch e {
	case "string":
		return "String"
	case "int64":
		return "Int64"
	case "int32":
		return "Int32"
	case "float64":
		return "Float64"
	case "bool":
		return "Bool"
	case "time.Time":
		return "Time"
	case "json.RawMessage":
		return "Raw"
	case "any":
		return "Any"
	case "struct{}":
		return "Empty"
	}
	return goName(e)
}

// valueCycle reports whether the struct named from reaches target through fields held by value.
func (g *generator) valueCycle(from, target string, seen map[string]bool) bool {
	if from == target {
		return true
	}
	if seen[from] {
		return false
	}
	seen[from] = true
	d, ok := g.structs[from]
	if !ok {
		return false
	}
	for _, f := range d.Fields {
		if f.Target != "" && g.valueCycle(f.Target, target, seen) {
			return true
		}
	}
	return false
}

// breakCycles turns by-value struct fields that would make a type contain itself into pointers.
func (g *generator) breakCycles() {
	for _, name := range sortedStructNames(g.structs) {
		for _, f := range g.structs[name].Fields {
			if f.Target != "" && g.valueCycle(f.Target, name, map[string]bool{}) {
				f.Type = "*" + f.Type
				f.Target = ""
			}
		}
	}
}

func sortedStructNames(m map[string]*structDecl) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
