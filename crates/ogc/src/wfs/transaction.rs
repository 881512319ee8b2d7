//! Transaction: Insert, Update, Replace and Delete through the feature service's write path
//! (`FeatureService::draft`, `create_many`, `replace`, `retire`): the same validation, (lot, plan)
//! identity, server-kept properties, versions, history and `cadastre.parcel.*` events as the
//! cadastre API.
//!
//! Every action is read, its features validated and its targets found before anything is
//! written, so a malformed or invalid transaction changes nothing. The actions are then applied
//! in order, each in its own store transaction: a conflict found only while writing (a (lot,
//! plan) taken meanwhile) stops the transaction after the actions already applied.

use super::fes;
use super::getfeature::filter_for;
use super::gml;
use super::xml::Element;
use super::{find_type, Context, FeatureType, Response, WfsService, DEFAULT_CRS, FES_NS, WFS_NS, XML};
use crate::ows::{escape, ExceptionCode, OgcError, OgcResult};
use crate::srs;
use meridian_collections::write::{as_input, merge_patch};
use meridian_collections::{Batch, Draft, ListQuery, Start};
use meridian_core::crs::{Crs, Transformer};
use meridian_features::geometry;
use meridian_store::features::Feature;
use serde_json::{json, Map, Value};
use std::fmt::Write;

enum Planned {
    Insert { handle: String, collection: String, drafts: Vec<Draft> },
    Update { handle: String, changes: Vec<(Feature, Draft)> },
    Replace { handle: String, changes: Vec<(Feature, Draft)> },
    Delete { targets: Vec<Feature> },
}

fn handle_of(el: &Element, i: usize) -> String {
    el.attr("handle").map(str::to_owned).unwrap_or_else(|| format!("{}[{i}]", el.name))
}

fn typed(text: &str, kind: Option<&str>) -> Value {
    match kind {
        Some("number") => text
            .trim()
            .parse::<f64>()
            .ok()
            .and_then(|n| serde_json::Number::from_f64(n).map(Value::Number))
            .unwrap_or_else(|| Value::String(text.to_owned())),
        Some("boolean") => match text.trim() {
            "true" | "1" => Value::Bool(true),
            "false" | "0" => Value::Bool(false),
            other => Value::String(other.to_owned()),
        },
        _ => Value::String(text.to_owned()),
    }
}

fn kind_of(ty: &FeatureType, name: &str) -> Option<&'static str> {
    ty.queryables.iter().find(|(n, _)| n == name).map(|(_, k)| *k)
}

fn is_nil(el: &Element) -> bool {
    matches!(el.attr("nil"), Some("true") | Some("1"))
}

/// A GML geometry as GeoJSON in CRS84.
fn geometry_of(el: &Element, default: Crs, locator: &str) -> OgcResult<Value> {
    let read = gml::read_geometry(el).map_err(|e| OgcError::at(ExceptionCode::InvalidValue, locator, e))?;
    let crs = match &read.srs_name {
        Some(s) => srs::parse(s).map_err(|e| OgcError::invalid("srsName", e))?,
        None => default,
    };
    if crs == Crs::Crs84 {
        return Ok(read.geojson);
    }
    let t = Transformer::new(crs, Crs::Crs84).map_err(|e| OgcError::invalid("srsName", e))?;
    geometry::map_positions(&read.geojson, &mut |x, y| t.apply(x, y))
        .ok_or_else(|| OgcError::at(ExceptionCode::InvalidValue, locator, "the geometry is outside its CRS's domain"))
}

/// A feature element of an Insert or Replace as a GeoJSON Feature in CRS84.
fn feature_body(el: &Element, ty: &FeatureType, default: Crs, locator: &str) -> OgcResult<Value> {
    let mut properties = Map::new();
    let mut geom = Value::Null;
    for c in &el.children {
        if matches!(c.name.as_str(), "boundedBy" | "name" | "description" | "identifier") {
            continue;
        }
        if let Some(g) = c.children.iter().find(|g| gml::is_geometry(g)) {
            geom = geometry_of(g, default, locator)?;
            continue;
        }
        if is_nil(c) {
            continue;
        }
        properties.insert(c.name.clone(), typed(&c.text, kind_of(ty, &c.name)));
    }
    Ok(json!({"type": "Feature", "geometry": geom, "properties": properties}))
}

fn default_crs(el: &Element) -> OgcResult<Crs> {
    match el.attr("srsName") {
        Some(s) => srs::parse(s).map_err(|e| OgcError::invalid("srsName", e)),
        None => Ok(DEFAULT_CRS),
    }
}

/// The feature type an Update or Delete names (`typeName`).
fn action_type<'a>(types: &'a [FeatureType], action: &Element, handle: &str) -> OgcResult<&'a FeatureType> {
    let name =
        action.attr("typeName").or_else(|| action.attr("typeNames")).ok_or_else(|| OgcError::missing("typeName"))?;
    find_type(types, name, handle)
}

/// The live features of a type that a filter selects (at most `max_changes`).
async fn targets(
    svc: &WfsService,
    ctx: &Context,
    ty: &FeatureType,
    action: &Element,
    locator: &str,
) -> OgcResult<Vec<Feature>> {
    let filter = action
        .child("Filter")
        .ok_or_else(|| OgcError::at(ExceptionCode::MissingParameterValue, locator, "the action needs a fes:Filter"))?;
    let expr = filter_for(ty, filter, svc.limits())?;
    let account = &ctx.account;
    if let Some(ids) = fes::only_resource_ids(&expr) {
        let mut out = Vec::new();
        for id in ids {
            if let Ok(f) = svc.features().feature(account, &ty.collection.id, &id).await {
                out.push(f);
            }
        }
        return Ok(out);
    }
    let max = svc.limits().max_changes;
    let mut out = Vec::new();
    let mut q = ListQuery {
        collection: ty.collection.id.clone(),
        filter: Some(expr),
        limit: svc.limits().page,
        ..ListQuery::default()
    };
    loop {
        let mut page = svc.features().list(account, &q).await.map_err(|e| OgcError::from_features(e, locator))?;
        // The first page tells how many match when the store knows it exactly: an action over
        // the cap is refused then, before the rest is read.
        let over = page.number_matched.is_some_and(|n| n > u64::from(max));
        out.extend(page.take_features().map_err(|e| OgcError::from_features(e, locator))?);
        if over || out.len() > max as usize {
            return Err(OgcError::at(
                ExceptionCode::OperationProcessingFailed,
                locator,
                format!("the filter selects more than {max} features; one action may change at most {max}"),
            ));
        }
        match page.next {
            Some(c) => q.start = Start::Cursor(c),
            None => return Ok(out),
        }
    }
}

async fn draft(svc: &WfsService, body: Value, collection: &str, locator: &str) -> OgcResult<Draft> {
    svc.features().draft(body, Crs::Crs84, collection).await.map_err(|e| OgcError::from_features(e, locator))
}

async fn plan(svc: &WfsService, ctx: &Context, root: &Element) -> OgcResult<Vec<Planned>> {
    let types = svc.feature_types(&ctx.account).await?;
    let mut plans = Vec::new();
    for (i, action) in root.children.iter().enumerate() {
        let handle = handle_of(action, i);
        match action.name.as_str() {
            "Insert" => {
                let crs = default_crs(action)?;
                let mut by_type: Vec<(String, Vec<Draft>)> = Vec::new();
                for (j, f) in action.children.iter().enumerate() {
                    let ty = find_type(&types, &f.name, &handle)?;
                    let locator = format!("{handle}/{}[{j}]", f.name);
                    let body = feature_body(f, ty, crs, &locator)?;
                    let d = draft(svc, body, &ty.collection.id, &locator).await?;
                    match by_type.iter_mut().find(|(c, _)| *c == ty.collection.id) {
                        Some((_, v)) => v.push(d),
                        None => by_type.push((ty.collection.id.clone(), vec![d])),
                    }
                }
                if by_type.is_empty() {
                    return Err(OgcError::at(ExceptionCode::InvalidValue, &handle, "an Insert needs a feature"));
                }
                for (collection, drafts) in by_type {
                    plans.push(Planned::Insert { handle: handle.clone(), collection, drafts });
                }
            }
            "Update" => {
                let ty = action_type(&types, action, &handle)?;
                let crs = default_crs(action)?;
                let mut props = Map::new();
                let mut geom: Option<Value> = None;
                for p in action.children_named("Property") {
                    let reference = p
                        .child("ValueReference")
                        .or_else(|| p.child("Name"))
                        .map(|r| fes::property_name(r.trimmed()))
                        .ok_or_else(|| {
                            OgcError::at(ExceptionCode::InvalidValue, &handle, "a Property needs a ValueReference")
                        })?;
                    let value = p.child("Value");
                    if reference == "geometry" {
                        let g = match value.and_then(|v| v.children.iter().find(|g| gml::is_geometry(g))) {
                            Some(g) => geometry_of(g, crs, &handle)?,
                            None => Value::Null,
                        };
                        geom = Some(g);
                        continue;
                    }
                    if reference == "id" || !super::xml::is_ncname(&reference) {
                        return Err(OgcError::at(
                            ExceptionCode::InvalidValue,
                            &handle,
                            format!("`{reference}` cannot be updated"),
                        ));
                    }
                    let v = match value {
                        Some(v) if !is_nil(v) => typed(&v.text, kind_of(ty, &reference)),
                        _ => Value::Null,
                    };
                    props.insert(reference, v);
                }
                let mut patch = json!({"properties": props});
                if let Some(g) = geom {
                    patch["geometry"] = g;
                }
                let mut changes = Vec::new();
                for current in targets(svc, ctx, ty, action, &handle).await? {
                    let mut merged = as_input(&current);
                    merge_patch(&mut merged, &patch);
                    merged["type"] = json!("Feature");
                    let d = draft(svc, merged, &ty.collection.id, &format!("{handle}/{}", current.id)).await?;
                    changes.push((current, d));
                }
                plans.push(Planned::Update { handle, changes });
            }
            "Replace" => {
                let f =
                    action.children.iter().find(|c| c.name != "Filter").ok_or_else(|| {
                        OgcError::at(ExceptionCode::InvalidValue, &handle, "a Replace needs a feature")
                    })?;
                let ty = find_type(&types, &f.name, &handle)?;
                let body = feature_body(f, ty, default_crs(action)?, &handle)?;
                let mut changes = Vec::new();
                for current in targets(svc, ctx, ty, action, &handle).await? {
                    let d = draft(svc, body.clone(), &ty.collection.id, &handle).await?;
                    changes.push((current, d));
                }
                plans.push(Planned::Replace { handle, changes });
            }
            "Delete" => {
                let ty = action_type(&types, action, &handle)?;
                let targets = targets(svc, ctx, ty, action, &handle).await?;
                plans.push(Planned::Delete { targets });
            }
            "Native" if matches!(action.attr("safeToIgnore"), Some("true")) => {}
            other => {
                return Err(OgcError::not_supported(
                    other,
                    format!("wfs:{other} is not a transaction action of this service"),
                ))
            }
        }
    }
    Ok(plans)
}

/// Runs a transaction and answers with its `wfs:TransactionResponse`. Every action is planned
/// (validated, its targets found) first, then all of them are stored in one store transaction:
/// every change or none.
pub async fn execute(svc: &WfsService, ctx: &Context, root: Element) -> OgcResult<Response> {
    if !ctx.may_write {
        return Err(OgcError::new(
            ExceptionCode::OperationProcessingFailed,
            Some("Transaction".into()),
            "this credential may read but not change features (it lacks the ogc:write scope)",
        ));
    }
    let plans = plan(svc, ctx, &root).await?;
    let account = &ctx.account;
    let mut batch = Batch::default();
    // What each action produced, by kind, as (handle, position in the batch's results).
    let (mut inserted, mut updated, mut replaced, mut deleted) = (Vec::new(), Vec::new(), Vec::new(), 0u64);
    let mut first_handle = None;
    for p in plans {
        match p {
            Planned::Insert { handle, collection, drafts } => {
                first_handle.get_or_insert_with(|| handle.clone());
                for d in drafts {
                    inserted.push((handle.clone(), batch.create(account, &collection, d)));
                }
            }
            Planned::Update { handle, changes } => {
                first_handle.get_or_insert_with(|| handle.clone());
                for (current, d) in changes {
                    updated.push((handle.clone(), batch.replace(&current, d, None)));
                }
            }
            Planned::Replace { handle, changes } => {
                first_handle.get_or_insert_with(|| handle.clone());
                for (current, d) in changes {
                    replaced.push((handle.clone(), batch.replace(&current, d, None)));
                }
            }
            Planned::Delete { targets } => {
                first_handle.get_or_insert_with(|| "Delete".to_owned());
                for t in targets {
                    batch.retire(&t, None);
                    deleted += 1;
                }
            }
        }
    }
    if !batch.is_empty() {
        let locator = first_handle.unwrap_or_else(|| "Transaction".to_owned());
        svc.features().commit(batch).await.map_err(|e| OgcError::from_features(e, &locator))?;
    }
    Ok(Response::text(XML, response(&inserted, &updated, &replaced, deleted)))
}

fn results(out: &mut String, tag: &str, list: &[(String, Feature)]) {
    if list.is_empty() {
        return;
    }
    let _ = write!(out, "<wfs:{tag}>");
    for (handle, f) in list {
        let _ = write!(
            out,
            "<wfs:Feature handle=\"{}\"><fes:ResourceId rid=\"{}\"/></wfs:Feature>",
            escape(handle),
            escape(&f.id)
        );
    }
    let _ = write!(out, "</wfs:{tag}>");
}

fn response(
    inserted: &[(String, Feature)],
    updated: &[(String, Feature)],
    replaced: &[(String, Feature)],
    deleted: u64,
) -> String {
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<wfs:TransactionResponse xmlns:wfs=\"{WFS_NS}\" xmlns:fes=\"{FES_NS}\" version=\"2.0.0\">\
         <wfs:TransactionSummary><wfs:totalInserted>{}</wfs:totalInserted><wfs:totalUpdated>{}</wfs:totalUpdated>\
         <wfs:totalReplaced>{}</wfs:totalReplaced><wfs:totalDeleted>{deleted}</wfs:totalDeleted></wfs:TransactionSummary>",
        inserted.len(),
        updated.len(),
        replaced.len()
    );
    results(&mut out, "InsertResults", inserted);
    results(&mut out, "UpdateResults", updated);
    results(&mut out, "ReplaceResults", replaced);
    out.push_str("</wfs:TransactionResponse>\n");
    out
}
