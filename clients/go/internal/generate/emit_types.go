package main

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

func (g *generator) emitTypes() string {
	var b strings.Builder
	var names []string
	for n := range g.structs {
		names = append(names, n)
	}
	for n := range g.enums {
		names = append(names, n)
	}
	for n := range g.unions {
		names = append(names, n)
	}
	for n := range g.aliases {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		switch {
		case g.structs[n] != nil:
			g.emitStruct(&b, g.structs[n])
		case g.enums[n] != nil:
			g.emitEnum(&b, g.enums[n])
		case g.unions[n] != nil:
			g.emitUnion(&b, g.unions[n])
		case g.aliases[n] != nil:
			a := g.aliases[n]
			writeDoc(&b, a.Name, a.Origin, a.Doc)
			fmt.Fprintf(&b, "type %s = %s\n\n", a.Name, a.Target)
		}
	}
	return b.String()
}

func writeDoc(b *strings.Builder, name, origin, doc string) {
	if origin != "" {
		fmt.Fprintf(b, "// %s is the schema %q of the OpenAPI document.\n", name, origin)
	} else {
		fmt.Fprintf(b, "// %s is an inline schema of the OpenAPI document.\n", name)
	}
	if doc = strings.TrimSpace(doc); doc != "" {
		b.WriteString("//\n" + comment("", doc))
	}
}

func (g *generator) emitStruct(b *strings.Builder, d *structDecl) {
	writeDoc(b, d.Name, d.Origin, d.Doc)
	fmt.Fprintf(b, "type %s struct {\n", d.Name)
	for _, f := range d.Fields {
		b.WriteString(comment("\t", f.Doc))
		tag := f.JSONName
		if f.Omit {
			tag += ",omitempty"
		}
		fmt.Fprintf(b, "\t%s %s `json:%s`\n", f.GoName, f.Type, strconv.Quote(tag))
	}
	if d.Extra != nil {
		b.WriteString("\t// AdditionalProperties holds the members not declared above.\n")
		fmt.Fprintf(b, "\tAdditionalProperties map[string]%s `json:\"-\"`\n", d.Extra.Expr)
	}
	b.WriteString("}\n\n")
	if d.Extra == nil {
		return
	}
	var known []string
	for _, f := range d.Fields {
		known = append(known, strconv.Quote(f.JSONName))
	}
	fmt.Fprintf(b, `// MarshalJSON writes the declared members and AdditionalProperties.
func (v %[1]s) MarshalJSON() ([]byte, error) {
	type plain %[1]s
	b, err := json.Marshal(plain(v))
	if err != nil || len(v.AdditionalProperties) == 0 {
		return b, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, e := range v.AdditionalProperties {
		if _, declared := m[k]; declared {
			continue
		}
		raw, err := json.Marshal(e)
		if err != nil {
			return nil, err
		}
		m[k] = raw
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads the declared members and keeps the others in AdditionalProperties.
func (v *%[1]s) UnmarshalJSON(data []byte) error {
	type plain %[1]s
	if err := json.Unmarshal(data, (*plain)(v)); err != nil {
		return err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	for _, k := range []string{%[2]s} {
		delete(m, k)
	}
	v.AdditionalProperties = nil
	if len(m) == 0 {
		return nil
	}
	v.AdditionalProperties = make(map[string]%[3]s, len(m))
	for k, raw := range m {
		var e %[3]s
		if err := json.Unmarshal(raw, &e); err != nil {
			return err
		}
		v.AdditionalProperties[k] = e
	}
	return nil
}

`, d.Name, strings.Join(known, ", "), d.Extra.Expr)
}

func (g *generator) emitEnum(b *strings.Builder, d *enumDecl) {
	writeDoc(b, d.Name, d.Origin, d.Doc)
	fmt.Fprintf(b, "type %s string\n\n", d.Name)
	if len(d.Values) == 0 {
		return
	}
	fmt.Fprintf(b, "// Values of %s.\nconst (\n", d.Name)
	used := nameSet{}
	for _, v := range d.Values {
		suffix := goName(v)
		if strings.TrimSpace(v) == "" {
			suffix = "Empty"
		}
		cn := g.names.take(used.take(d.Name+suffix, ""), "")
		fmt.Fprintf(b, "\t%s %s = %s\n", cn, d.Name, strconv.Quote(v))
	}
	b.WriteString(")\n\n")
}

func (g *generator) emitUnion(b *strings.Builder, d *unionDecl) {
	writeDoc(b, d.Name, d.Origin, d.Doc)
	var labels []string
	for _, v := range d.Variants {
		labels = append(labels, "As"+v.Label)
	}
	fmt.Fprintf(b, "//\n// It is one of several shapes: read it with %s.\n", strings.Join(labels, ", "))
	fmt.Fprintf(b, "type %s struct {\n\tunion json.RawMessage\n}\n\n", d.Name)
	fmt.Fprintf(b, `// MarshalJSON writes the value as it was set or read.
func (u %[1]s) MarshalJSON() ([]byte, error) {
	if len(u.union) == 0 {
		return []byte("null"), nil
	}
	return u.union, nil
}

// UnmarshalJSON keeps the raw value; the As methods decode it.
func (u *%[1]s) UnmarshalJSON(data []byte) error {
	u.union = append(u.union[:0], data...)
	return nil
}

// Raw returns the JSON text of the value.
func (u %[1]s) Raw() json.RawMessage {
	return u.union
}

`, d.Name)
	for _, v := range d.Variants {
		fmt.Fprintf(b, `// As%[2]s decodes the value as %[3]s.
func (u %[1]s) As%[2]s() (%[3]s, error) {
	var v %[3]s
	err := json.Unmarshal(u.union, &v)
	return v, err
}

// From%[2]s sets the value to v.
func (u *%[1]s) From%[2]s(v %[3]s) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	u.union = b
	return nil
}

`, d.Name, v.Label, v.Type.Expr)
	}
	if d.DiscProp == "" {
		return
	}
	fmt.Fprintf(b, `// Discriminator returns the value's %[2]q member, which says which shape it has.
func (u %[1]s) Discriminator() (string, error) {
	var d struct {
		Value string `+"`json:%[3]s`"+`
	}
	err := json.Unmarshal(u.union, &d)
	return d.Value, err
}

// ValueByDiscriminator decodes the value as the shape its %[2]q member names.
func (u %[1]s) ValueByDiscriminator() (any, error) {
	d, err := u.Discriminator()
	if err != nil {
		return nil, err
	}
	switch d {
`, d.Name, d.DiscProp, strconv.Quote(d.DiscProp))
	seen := map[string]bool{}
	for _, v := range d.Variants {
		var cases []string
		for _, val := range v.Disc {
			if seen[val] {
				continue
			}
			seen[val] = true
			cases = append(cases, strconv.Quote(val))
		}
		if len(cases) == 0 {
			continue
		}
		fmt.Fprintf(b, "\tcase %s:\n\t\tv, err := u.As%s()\n\t\treturn v, err\n", strings.Join(cases, ", "), v.Label)
	}
	fmt.Fprintf(b, "\t}\n\treturn nil, fmt.Errorf(\"meridian: %s: unknown %s %%q\", d)\n}\n\n", d.Name, d.DiscProp)
}
