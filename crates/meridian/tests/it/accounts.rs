use crate::{problem, Server};
use serde_json::{json, Value};

#[tokio::test]
async fn signup_then_authenticated_calls_with_key_and_token() {
    let s = Server::start();
    let (id, key) = s.signup("ada@example.com").await;
    assert!(id.starts_with("acct_") && key.starts_with("mrd_"));

    let me: Value = s.get("/api/v1/account", &key).await.json().await.unwrap();
    assert_eq!(me["id"], id.as_str());
    assert_eq!(me["email"], "ada@example.com");
    assert!(me["created_at"].as_str().unwrap().ends_with('Z'));

    let via_header = s.client.get(s.url("/api/v1/account")).header("X-Api-Key", &key).send().await.unwrap();
    assert_eq!(via_header.status(), 200);

    let r = s.client.post(s.url("/api/v1/auth/token")).header("X-Api-Key", &key).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let token: Value = r.json().await.unwrap();
    assert_eq!(token["token_type"], "Bearer");
    assert_eq!(token["expires_in"], 3600);
    let access = token["access_token"].as_str().unwrap();
    let me: Value = s.get("/api/v1/account", access).await.json().await.unwrap();
    assert_eq!(me["id"], id.as_str());

    // A token cannot be traded for another token.
    let r = s.client.post(s.url("/api/v1/auth/token")).bearer_auth(access).send().await.unwrap();
    problem(r, 401, "unauthenticated").await;
}

#[tokio::test]
async fn missing_unknown_and_revoked_credentials_are_401_with_a_challenge() {
    let s = Server::start();
    let r = s.client.get(s.url("/api/v1/account")).send().await.unwrap();
    assert_eq!(r.headers()["www-authenticate"], "Bearer realm=\"meridian\"");
    problem(r, 401, "unauthenticated").await;
    problem(s.get("/api/v1/account", "mrd_notakey").await, 401, "unauthenticated").await;
    problem(s.get("/api/v1/account", "eyJ.bogus.token").await, 401, "unauthenticated").await;

    let (_, key) = s.signup("rev@example.com").await;
    let r = s
        .client
        .post(s.url("/api/v1/account/api-keys"))
        .bearer_auth(&key)
        .json(&json!({"name": "ci"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let created: Value = r.json().await.unwrap();
    let second = created["api_key"].as_str().unwrap().to_owned();
    let second_id = created["id"].as_str().unwrap().to_owned();
    let token: Value =
        s.client.post(s.url("/api/v1/auth/token")).bearer_auth(&second).send().await.unwrap().json().await.unwrap();
    let access = token["access_token"].as_str().unwrap().to_owned();
    assert_eq!(s.get("/api/v1/account", &access).await.status(), 200);

    let r = s
        .client
        .delete(s.url(&format!("/api/v1/account/api-keys/{second_id}")))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let revoked: Value = r.json().await.unwrap();
    assert!(revoked["revoked_at"].is_string());
    problem(s.get("/api/v1/account", &second).await, 401, "unauthenticated").await;
    problem(s.get("/api/v1/account", &access).await, 401, "unauthenticated").await;
    assert_eq!(s.get("/api/v1/account", &key).await.status(), 200);
}

#[tokio::test]
async fn keys_are_listed_paged_and_never_shown_again() {
    let s = Server::start();
    let (_, key) = s.signup("list@example.com").await;
    for i in 0..3 {
        let r = s
            .client
            .post(s.url("/api/v1/account/api-keys"))
            .bearer_auth(&key)
            .json(&json!({"name": format!("k{i}"), "expires_in": 3600}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 201);
        assert!(r.headers()["location"].to_str().unwrap().starts_with("/api/v1/account/api-keys/key_"));
    }
    let r = s.get("/api/v1/account/api-keys?limit=2", &key).await;
    let link = r.headers()["link"].to_str().unwrap().to_owned();
    assert!(link.contains("cursor=2.key_") && link.contains("rel=\"next\""), "{link}");
    let page: Value = r.json().await.unwrap();
    // The next link's cursor gives what offset 2 gives, and a cursor is checked like an offset.
    let next = link.split_once('<').unwrap().1.split_once('>').unwrap().0;
    let by_cursor: Value = s.get(next, &key).await.json().await.unwrap();
    let by_offset: Value = s.get("/api/v1/account/api-keys?limit=2&offset=2", &key).await.json().await.unwrap();
    assert_eq!(by_cursor, by_offset);
    assert_eq!(by_cursor["api_keys"].as_array().unwrap().len(), 2);
    for (query, pointer) in [("cursor=2", "/cursor"), ("cursor=x.key_1", "/cursor"), ("cursor=2.a%20b", "/cursor")] {
        let body =
            problem(s.get(&format!("/api/v1/account/api-keys?{query}"), &key).await, 422, "validation_failed").await;
        assert_eq!(body["errors"][0]["pointer"], pointer, "{query}");
    }
    let both = format!("{next}&offset=2");
    let body = problem(s.get(&both, &key).await, 422, "validation_failed").await;
    assert_eq!(body["errors"][0]["pointer"], "/cursor");
    assert_eq!(page["total"], 4);
    assert_eq!(page["api_keys"].as_array().unwrap().len(), 2);
    let text = page.to_string();
    assert!(!text.contains(&key) && !text.contains("hash"), "keys are never shown again");
    let first = &page["api_keys"][0];
    assert!(first["expires_at"].is_string());
    assert!(
        key.starts_with(first["prefix"].as_str().unwrap()) || first["prefix"].as_str().unwrap().starts_with("mrd_")
    );

    let r = s.get("/api/v1/account/api-keys?limit=0", &key).await;
    let body = problem(r, 422, "validation_failed").await;
    assert_eq!(body["errors"][0]["pointer"], "/limit");
    let r = s.get("/api/v1/account/api-keys?limit=abc", &key).await;
    problem(r, 400, "malformed_request").await;
}

#[tokio::test]
async fn scopes_limit_what_a_key_can_do_and_create() {
    let s = Server::start();
    let (_, key) = s.signup("scope@example.com").await;
    let created: Value = s
        .client
        .post(s.url("/api/v1/account/api-keys"))
        .bearer_auth(&key)
        .json(&json!({"name": "jobs-reader", "scopes": ["jobs:read"]}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(created["scopes"], json!(["jobs:read"]));
    let narrow = created["api_key"].as_str().unwrap();
    assert_eq!(s.get("/api/v1/jobs", narrow).await.status(), 200);
    let body = problem(s.get("/api/v1/account", narrow).await, 403, "forbidden").await;
    assert!(body["detail"].as_str().unwrap().contains("account:read"));

    // A scoped token carries the key's scopes.
    let token: Value =
        s.client.post(s.url("/api/v1/auth/token")).bearer_auth(narrow).send().await.unwrap().json().await.unwrap();
    let access = token["access_token"].as_str().unwrap();
    assert_eq!(s.get("/api/v1/jobs", access).await.status(), 200);
    problem(s.get("/api/v1/account", access).await, 403, "forbidden").await;

    // account:write may create keys, but never broader than itself.
    let writer: Value = s
        .client
        .post(s.url("/api/v1/account/api-keys"))
        .bearer_auth(&key)
        .json(&json!({"scopes": ["account:write"]}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let writer = writer["api_key"].as_str().unwrap();
    for scopes in [json!(["*"]), json!(["dns:write"]), json!([])] {
        let r = s
            .client
            .post(s.url("/api/v1/account/api-keys"))
            .bearer_auth(writer)
            .json(&json!({"scopes": scopes}))
            .send()
            .await
            .unwrap();
        problem(r, 403, "forbidden").await;
    }
    let r = s
        .client
        .post(s.url("/api/v1/account/api-keys"))
        .bearer_auth(writer)
        .json(&json!({"scopes": ["account:read"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
}

#[tokio::test]
async fn another_accounts_resources_are_404() {
    let s = Server::start();
    let (_, a) = s.signup("a@example.com").await;
    let (_, b) = s.signup("b@example.com").await;
    let keys: Value = s.get("/api/v1/account/api-keys", &a).await.json().await.unwrap();
    let a_key_id = keys["api_keys"][0]["id"].as_str().unwrap().to_owned();
    problem(s.get(&format!("/api/v1/account/api-keys/{a_key_id}"), &b).await, 404, "not_found").await;
    let r =
        s.client.delete(s.url(&format!("/api/v1/account/api-keys/{a_key_id}"))).bearer_auth(&b).send().await.unwrap();
    problem(r, 404, "not_found").await;
    // A's key still works.
    assert_eq!(s.get("/api/v1/account", &a).await.status(), 200);
    let b_keys: Value = s.get("/api/v1/account/api-keys", &b).await.json().await.unwrap();
    assert_eq!(b_keys["total"], 1);
    problem(s.get("/api/v1/jobs/job_01jzzzzzzzzzzzzzzzzzzzzzzz", &b).await, 404, "not_found").await;
}

#[tokio::test]
async fn signup_validates_and_refuses_duplicates_and_can_be_closed() {
    let s = Server::start();
    let r = s.client.post(s.url("/api/v1/accounts")).json(&json!({"name": "", "email": "nope"})).send().await.unwrap();
    let body = problem(r, 422, "validation_failed").await;
    let pointers: Vec<&str> =
        body["errors"].as_array().unwrap().iter().map(|e| e["pointer"].as_str().unwrap()).collect();
    assert_eq!(pointers, ["/name", "/email"]);
    let r = s.client.post(s.url("/api/v1/accounts")).json(&json!({"name": "x"})).send().await.unwrap();
    let body = problem(r, 422, "validation_failed").await;
    assert_eq!(body["errors"][0]["pointer"], "/email");
    s.signup("dup@example.com").await;
    let r = s
        .client
        .post(s.url("/api/v1/accounts"))
        .json(&json!({"name": "x", "email": "DUP@example.com"}))
        .send()
        .await
        .unwrap();
    problem(r, 409, "email_taken").await;

    let closed = Server::start_with(&[("MERIDIAN_AUTH__SIGNUP", "closed")]);
    let r = closed
        .client
        .post(closed.url("/api/v1/accounts"))
        .json(&json!({"name": "x", "email": "x@example.com"}))
        .send()
        .await
        .unwrap();
    problem(r, 403, "signup_closed").await;
}
