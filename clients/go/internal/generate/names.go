package main

import (
	"go/token"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// commonInitialisms are written in capitals in Go names (the list golint uses).
var commonInitialisms = map[string]bool{
	"ACL": true, "API": true, "ASCII": true, "CPU": true, "CSS": true, "DNS": true, "EOF": true,
	"GUID": true, "HTML": true, "HTTP": true, "HTTPS": true, "ID": true, "IP": true, "JSON": true,
	"LHS": true, "QPS": true, "RAM": true, "RHS": true, "RPC": true, "SLA": true, "SMTP": true,
	"SQL": true, "SSH": true, "TCP": true, "TLS": true, "TTL": true, "UDP": true, "UI": true,
	"UID": true, "UUID": true, "URI": true, "URL": true, "UTF8": true, "VM": true, "XML": true,
	"XMPP": true, "XSRF": true, "XSS": true,
}

// splitWords cuts a name into words at every character that is not a letter or a digit and
// at lower-to-upper case changes ("ApiKeyView" → Api Key View, "sensorId" → sensor Id,
// "HTTPServer" → HTTP Server).
func splitWords(s string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, string(cur))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if len(cur) > 0 && unicode.IsUpper(r) {
			prev := cur[len(cur)-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return words
}

// goName turns any name of the document into an exported Go identifier.
func goName(s string) string {
	words := splitWords(s)
	var b strings.Builder
	for _, w := range words {
		up := strings.ToUpper(w)
		if commonInitialisms[up] {
			b.WriteString(up)
			continue
		}
		if len(up) > 2 && strings.HasSuffix(w, "s") && commonInitialisms[up[:len(up)-1]] {
			b.WriteString(up[:len(up)-1] + "s") // IDs, URLs
			continue
		}
		rs := []rune(strings.ToLower(w))
		// A word already in mixed case (e.g. "Dnskey", "GeoJSON") keeps its inner capitals.
		orig := []rune(w)
		hasLower := false
		for _, r := range orig {
			if unicode.IsLower(r) {
				hasLower = true
			}
		}
		if hasLower {
			rs = orig
		}
		rs[0] = unicode.ToUpper(rs[0])
		b.WriteString(string(rs))
	}
	out := b.String()
	if out == "" {
		out = "X"
	}
	if r := []rune(out)[0]; unicode.IsDigit(r) {
		out = "N" + out
	}
	return out
}

// lowerName is goName with the first word in lower case, for arguments and locals.
func lowerName(s string) string {
	n := goName(s)
	words := splitWords(n)
	if len(words) == 0 {
		return "x"
	}
	first := words[0]
	var out string
	if commonInitialisms[strings.ToUpper(first)] {
		out = strings.ToLower(first) + n[len(first):]
	} else {
		rs := []rune(n)
		rs[0] = unicode.ToLower(rs[0])
		out = string(rs)
	}
	return out
}

// goPackageNames are the packages generated code may refer to; arguments must not shadow them.
var goPackageNames = map[string]string{
	"bytes":   "bytes",
	"context": "context",
	"errors":  "errors",
	"fmt":     "fmt",
	"http":    "net/http",
	"io":      "io",
	"json":    "encoding/json",
	"strconv": "strconv",
	"strings": "strings",
	"time":    "time",
	"url":     "net/url",
}

// reservedLocals are the names generated method bodies use themselves.
var reservedLocals = map[string]bool{
	"c": true, "ctx": true, "params": true, "body": true, "opts": true, "contentType": true,
	"req": true, "out": true, "resp": true, "err": true, "q": true, "h": true, "ok": true,
	"path": true, "v": true, "any": true, "string": true, "error": true, "nil": true,
	"true": true, "false": true, "len": true, "append": true, "make": true, "new": true,
}

func argName(s string) string {
	n := lowerName(s)
	if token.IsKeyword(n) || reservedLocals[n] || goPackageNames[n] != "" {
		n += "Param"
	}
	return n
}

// nameSet hands out unique names.
type nameSet map[string]bool

func (s nameSet) take(base string, suffix string) string {
	if !s[base] {
		s[base] = true
		return base
	}
	if suffix != "" && !s[base+suffix] {
		s[base+suffix] = true
		return base + suffix
	}
	for i := 2; ; i++ {
		n := base + suffix + strconv.Itoa(i)
		if !s[n] {
			s[n] = true
			return n
		}
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// comment renders a description as Go comment lines, each prefixed with indent + "// ".
func comment(indent, text string) string {
	text = strings.TrimSpace(text)
	if text == "" {
		return ""
	}
	var b strings.Builder
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, " \t\r")
		if line == "" {
			b.WriteString(indent + "//\n")
			continue
		}
		b.WriteString(indent + "// " + line + "\n")
	}
	return b.String()
}
