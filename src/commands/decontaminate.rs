//! `neardup decontaminate`: flags to [`ContaminationOptions`], the spans to `contamination`,
//! the summary to summary.json and text.

use crate::flags::DecontaminateArgs;
use anyhow::Result;
use neardup_clean::{Action, ContaminationOptions, ContaminationRow, ContaminationSummary};
use neardup_report::Format;
use serde::Serialize;

#[derive(Serialize)]
struct SummaryFile<'a> {
    #[serde(flatten)]
    summary: &'a ContaminationSummary,
    files: &'a [String],
}

pub fn run(args: &DecontaminateArgs, quiet: bool) -> Result<()> {
    let mut options = ContaminationOptions {
        action: Action::parse(&args.action).ok_or_else(|| {
            crate::flags::usage(format!(
                "--action {:?}: expected report, cut or drop",
                args.action
            ))
        })?,
        ..ContaminationOptions::default()
    };
    if let Some(n) = args.ngram {
        if n == 0 {
            return Err(crate::flags::usage(
                "--ngram 0: an n-gram has at least 1 word",
            ));
        }
        options.ngram = n;
    }
    if let Some(m) = args.margin {
        options.margin = m;
    }
    options.eval_read.fields.text = args.eval_text_field.clone();
    options.eval_read.fields.id = args.eval_id_field.clone();
    let inputs = crate::inputs::expand_common(&args.common)?;
    let outs = crate::output::Outputs::new(&inputs, args.common.force);
    outs.dir(&args.out)?;
    if let Some(d) = &args.write_clean {
        outs.dir(d)?;
    }
    let format: Format = args.format.into();
    let mut rows = outs.table_writer::<ContaminationRow>(&args.out, format)?;
    let bar = crate::progress::Bar::new(quiet);
    let summary = neardup_clean::contamination(
        &inputs,
        &args.eval,
        &args.common.pipeline(),
        &options,
        args.write_clean.as_deref().map(|d| (d, outs.guard())),
        &bar,
        |row| rows.write(&row).map_err(neardup_clean::CleanError::Write),
    )?;
    let mut files = vec![rows.finish()?.display().to_string()];
    files.extend(summary.outputs.iter().cloned());
    outs.summary(&args.out, &mut files, !args.no_report, |files| {
        serde_json::to_vec_pretty(&SummaryFile {
            summary: &summary,
            files,
        })
    })?;
    outs.end(&args.out, !args.no_report)?;
    if !quiet {
        let s = &summary;
        print!("{}", super::skipped_text(&s.skipped));
        let items: u64 = s.eval_items.iter().map(|e| e.1).sum();
        println!(
            "{} evaluation items ({} too short for {}-grams), {} distinct n-grams; {} documents read, {} contaminated in {} spans",
            items, s.eval_items_too_short, s.ngram, s.eval_ngrams, s.documents, s.documents_contaminated, s.spans
        );
        for (file, found) in &s.items_found {
            println!("  {file}: {found} item(s) found in the corpus");
        }
        if args.write_clean.is_some() {
            match s.action {
                Action::Cut => println!(
                    "cut {} characters from {} documents (spans and {} characters around each)",
                    s.chars_cut, s.documents_changed, s.margin
                ),
                Action::Drop => println!("left out {} documents", s.documents_changed),
                Action::Report => println!("--action report: the corpus was not written"),
            }
        }
        for f in &files {
            println!("wrote {f}");
        }
    }
    Ok(())
}
