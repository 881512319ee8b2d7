//! `meridian`: the whole platform in one program. `serve` runs the HTTP API, the DNS server, the
//! job workers and the event dispatcher; the other subcommands are administration.

#![allow(clippy::print_stdout)] // the CLI's own output goes to stdout

mod config;
mod duties;
mod http;
mod retention;
mod serve;

use anyhow::Context;
use clap::{Parser, Subcommand};
use meridian_core::config::Config;
use std::net::SocketAddr;
use std::path::PathBuf;

/// mimalloc rather than the system allocator: requests build and free many small JSON values on
/// several threads, where glibc's malloc spent a fifth of the server's time (docs/benchmarks.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(name = "meridian", version, about = "DNS, geospatial, digital twin and webhook platform")]
struct Cli {
    /// A TOML configuration file (`meridian config print --defaults` prints every key with its default).
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Where the embedded database and blobs live.
    #[arg(long, global = true, value_name = "DIR")]
    data_dir: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Runs the platform: HTTP API, DNS server, job workers and event dispatcher.
    Serve {
        /// HTTP address (port 0 picks a free port).
        #[arg(long, value_name = "ADDR")]
        http: Option<SocketAddr>,
        /// DNS address, UDP and TCP (port 0 picks a free port).
        #[arg(long, value_name = "ADDR")]
        dns: Option<SocketAddr>,
        /// The roles this node plays, every other one off: a list of api, dns, workers,
        /// dispatcher, mqtt (server.roles in the configuration).
        #[arg(long, value_name = "LIST", value_parser = parse_roles)]
        roles: Option<meridian_core::config::RolesConfig>,
    },
    /// Applies database migrations and exits.
    Migrate,
    /// Shows or checks the configuration.
    Config {
        #[command(subcommand)]
        action: ConfigAction,
    },
    /// Manages accounts.
    Account {
        #[command(subcommand)]
        action: AccountAction,
    },
}

#[derive(Subcommand)]
enum ConfigAction {
    /// Prints the effective configuration, secrets hidden.
    Print {
        /// Prints the built-in defaults instead: every key, commented, a starting point for a file.
        #[arg(long)]
        defaults: bool,
    },
    /// Checks the configuration and exits.
    Check,
}

#[derive(Subcommand)]
enum AccountAction {
    /// Creates an account and prints its API key.
    Create {
        #[arg(long)]
        name: String,
        #[arg(long)]
        email: String,
    },
}

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

fn parse_roles(list: &str) -> Result<meridian_core::config::RolesConfig, String> {
    meridian_core::config::RolesConfig::parse_list(list)
}

fn run() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let (http, dns, roles) = match &cli.command {
        Command::Serve { http, dns, roles } => (*http, *dns, roles.clone()),
        _ => (None, None, None),
    };
    let env: Vec<(String, String)> = std::env::vars().collect();
    let file = cli.config.clone().or_else(|| std::env::var_os("MERIDIAN_CONFIG").map(PathBuf::from));
    let flags = config::Overrides { data_dir: cli.data_dir.clone(), http, dns, roles };
    let config = config::load(file.as_deref(), &env, &flags)?;
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting the runtime")?;
    match cli.command {
        Command::Serve { .. } => {
            let served = runtime.block_on(serve::serve(config));
            serve::leave(runtime);
            served
        }
        Command::Migrate => runtime.block_on(async {
            let store = serve::open_store(&config).await?;
            store.health.ping().await?;
            println!("migrations applied to {}", redact_url(&config.database_url()));
            Ok(())
        }),
        Command::Config { action: ConfigAction::Print { defaults: true } } => {
            print!("{}", config::DEFAULTS);
            Ok(())
        }
        Command::Config { action: ConfigAction::Print { defaults: false } } => {
            print!("{}", config::print(&config)?);
            Ok(())
        }
        Command::Config { action: ConfigAction::Check } => {
            println!("configuration is valid");
            Ok(())
        }
        Command::Account { action: AccountAction::Create { name, email } } => {
            runtime.block_on(create_account(&config, name, email))
        }
    }
}

async fn create_account(config: &Config, name: String, email: String) -> anyhow::Result<()> {
    let store = serve::open_store(config).await?;
    let tokens = meridian_accounts::TokenKeys::load(config, &store).await?;
    let accounts = meridian_accounts::AccountService::new(store, tokens);
    let (secret, account) = accounts.create_account(&name, &email).await.map_err(|e| match e {
        meridian_accounts::Error::Domain(meridian_core::DomainError::Invalid(errors)) => {
            anyhow::anyhow!("{}", errors.iter().map(|e| e.detail.clone()).collect::<Vec<_>>().join("; "))
        }
        other => anyhow::anyhow!(other),
    })?;
    println!("account_id: {}", account.id);
    println!("api_key: {secret}");
    Ok(())
}

/// A database URL without its password, for messages.
fn redact_url(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => format!("{}://[redacted]{}", &url[..scheme], &url[at..]),
        _ => url.to_owned(),
    }
}
