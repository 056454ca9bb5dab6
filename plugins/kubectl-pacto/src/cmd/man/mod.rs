//! `kubectl-pacto __man DIR`: the man pages, generated from the command line (clap_mangen).

use anyhow::Result;
use clap::CommandFactory;
use kubectl_pacto::cli::Cli;
use std::process::ExitCode;

/// `__man DIR`: writes the pages into `dir`.
pub(crate) fn run(dir: &std::path::Path) -> Result<ExitCode> {
    write_man_pages(dir)?;
    Ok(ExitCode::SUCCESS)
}

/// The man pages: kubectl-pacto.1 and one page per visible subcommand, with a fixed date so that
/// the checked-in pages only change with the command line.
fn write_man_pages(dir: &std::path::Path) -> Result<()> {
    std::fs::create_dir_all(dir)?;
    let cmd = Cli::command()
        .name("kubectl-pacto")
        .bin_name("kubectl-pacto");
    let mut pages = vec![(String::from("kubectl-pacto"), cmd.clone())];
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("kubectl-pacto-{}", sub.get_name());
        pages.push((name.clone(), sub.clone().name(name)));
        for subsub in sub.get_subcommands().filter(|s| !s.is_hide_set()) {
            let name = format!("kubectl-pacto-{}-{}", sub.get_name(), subsub.get_name());
            pages.push((name.clone(), subsub.clone().name(name)));
        }
    }
    for (name, cmd) in pages {
        let mut buf = Vec::new();
        clap_mangen::Man::new(cmd)
            .date("2026-11")
            .source(format!("kubectl-pacto {}", env!("CARGO_PKG_VERSION")))
            .manual("kubectl plugins")
            .render(&mut buf)?;
        std::fs::write(dir.join(format!("{name}.1")), buf)?;
    }
    Ok(())
}
