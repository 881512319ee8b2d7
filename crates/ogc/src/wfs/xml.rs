//! A small element tree read from request bodies and FES filters with quick-xml, within limits
//! (size, nesting depth, element count), so a hostile document is refused before it costs memory
//! or stack. Names are kept without their prefixes: WFS, FES and GML element names do not clash,
//! and clients bind prefixes as they please.

use quick_xml::events::Event;
use quick_xml::Reader;

/// Bounds on a request document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct XmlLimits {
    /// Longest document, in bytes.
    pub max_bytes: usize,
    /// Deepest element nesting.
    pub max_depth: usize,
    /// Most elements in one document.
    pub max_elements: usize,
}

impl Default for XmlLimits {
    fn default() -> Self {
        Self { max_bytes: 16 * 1024 * 1024, max_depth: 64, max_elements: 1_000_000 }
    }
}

/// One element: its local name, its attributes (local names), its children and its text.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Element {
    pub name: String,
    /// The namespace prefix as written (`gml`, `fes`), empty when none.
    pub prefix: String,
    pub attrs: Vec<(String, String)>,
    pub children: Vec<Element>,
    /// The concatenated character data directly inside the element.
    pub text: String,
}

impl Element {
    /// An attribute by local name (`srsName`, `id` for `gml:id`).
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The first child with this local name.
    pub fn child(&self, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.name == name)
    }

    /// Every child with this local name.
    pub fn children_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Element> + 'a {
        self.children.iter().filter(move |c| c.name == name)
    }

    /// The text, trimmed.
    pub fn trimmed(&self) -> &str {
        self.text.trim()
    }
}

/// Why a document could not be read.
#[derive(Debug, Clone, PartialEq)]
pub struct XmlError(pub String);

impl std::fmt::Display for XmlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn split_name(s: &str) -> Result<(String, String), XmlError> {
    Ok(match s.split_once(':') {
        Some((p, l)) => (p.to_owned(), l.to_owned()),
        None => (String::new(), s.to_owned()),
    })
}

fn open(e: &quick_xml::events::BytesStart<'_>) -> Result<Element, XmlError> {
    let (prefix, name) = split_name(e.name().as_ref())?;
    let mut attrs = Vec::new();
    for a in e.attributes() {
        let a = a.map_err(|err| XmlError(format!("malformed attribute: {err}")))?;
        let key: &str = a.key.as_ref();
        if key == "xmlns" || key.starts_with("xmlns:") {
            continue;
        }
        let local = key.rsplit(':').next().unwrap_or(key).to_owned();
        let value = a
            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
            .map_err(|err| XmlError(format!("malformed attribute value: {err}")))?;
        attrs.push((local, value.into_owned()));
    }
    Ok(Element { name, prefix, attrs, children: Vec::new(), text: String::new() })
}

fn too_many(limits: &XmlLimits) -> XmlError {
    XmlError(format!("the document has more than {} elements", limits.max_elements))
}

/// Reads a document into its root element, within `limits`. A DOCTYPE (and so any entity
/// definition) is refused.
pub fn parse(text: &str, limits: &XmlLimits) -> Result<Element, XmlError> {
    if text.len() > limits.max_bytes {
        return Err(XmlError(format!("the document is longer than {} bytes", limits.max_bytes)));
    }
    let mut reader = Reader::from_str(text);
    reader.config_mut().check_end_names = true;
    let mut stack: Vec<Element> = Vec::new();
    let mut root: Option<Element> = None;
    let mut count = 0usize;
    loop {
        let event = reader
            .read_event()
            .map_err(|e| XmlError(format!("not well-formed XML at byte {}: {e}", reader.error_position())))?;
        match event {
            Event::Start(e) => {
                count += 1;
                if count > limits.max_elements {
                    return Err(too_many(limits));
                }
                if root.is_some() {
                    return Err(XmlError("content after the root element".into()));
                }
                if stack.len() >= limits.max_depth {
                    return Err(XmlError(format!("elements are nested more than {} levels deep", limits.max_depth)));
                }
                stack.push(open(&e)?);
            }
            Event::Empty(e) => {
                count += 1;
                if count > limits.max_elements {
                    return Err(too_many(limits));
                }
                if root.is_some() {
                    return Err(XmlError("content after the root element".into()));
                }
                let el = open(&e)?;
                match stack.last_mut() {
                    Some(parent) => parent.children.push(el),
                    None => root = Some(el),
                }
            }
            Event::End(_) => {
                let el = stack.pop().ok_or_else(|| XmlError("an end tag without a start".into()))?;
                match stack.last_mut() {
                    Some(parent) => parent.children.push(el),
                    None => root = Some(el),
                }
            }
            Event::Text(t) => {
                let content = t.into_inner();
                match stack.last_mut() {
                    Some(el) => el.text.push_str(&content),
                    None if content.trim().is_empty() => {}
                    None => return Err(XmlError("text outside the root element".into())),
                }
            }
            Event::CData(t) => {
                let content: &str = &t;
                match stack.last_mut() {
                    Some(el) => el.text.push_str(content),
                    None => return Err(XmlError("CDATA outside the root element".into())),
                }
            }
            Event::GeneralRef(r) => {
                let c = if r.is_char_ref() {
                    r.resolve_char_ref()
                        .map_err(|e| XmlError(format!("bad character reference: {e}")))?
                        .ok_or_else(|| XmlError("bad character reference".into()))?
                } else {
                    match r.into_inner().as_ref() {
                        "amp" => '&',
                        "lt" => '<',
                        "gt" => '>',
                        "quot" => '"',
                        "apos" => '\'',
                        other => return Err(XmlError(format!("unknown entity &{other};"))),
                    }
                };
                match stack.last_mut() {
                    Some(el) => el.text.push(c),
                    None => return Err(XmlError("a reference outside the root element".into())),
                }
            }
            Event::DocType(_) => return Err(XmlError("document type declarations are not accepted".into())),
            Event::Decl(_) | Event::PI(_) | Event::Comment(_) => {}
            Event::Eof => break,
        }
    }
    if !stack.is_empty() {
        return Err(XmlError("the document ends inside an element".into()));
    }
    root.ok_or_else(|| XmlError("the document has no root element".into()))
}

/// Whether `s` is an XML NCName that this service writes as an element name (ASCII letters,
/// digits, `_`, `-`, `.`; not starting with a digit, `-` or `.`).
pub fn is_ncname(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}
