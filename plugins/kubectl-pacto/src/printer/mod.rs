//! kubectl's printing flags for listing commands, checked once (`-o`, `--no-headers`,
//! `--show-labels`, `--sort-by`, `--show-managed-fields`), and the printers that do not depend
//! on the kind: `name`, `json`, `yaml`, `jsonpath=…` and `custom-columns=…` (kubectl
//! `cli-runtime/pkg/printers`, `kubectl/pkg/cmd/get/customcolumn.go` and `sorter.go`). As
//! cli-runtime's `JSONYamlPrintFlags` wraps them, `json` and `yaml` leave out
//! `metadata.managedFields` unless `--show-managed-fields` (`OmitManagedFieldsPrinter`, of the
//! object or of each item of a list); the other formats see the object whole.

pub mod columns;
pub mod jsonpath;
pub mod sort;

use anyhow::{anyhow, bail, Result};
use columns::Column;
use jsonpath::Template;
use pacto_gates::k8s::gofmt;
use pacto_gates::k8s::yaml::emit;
use pacto_gates::render;
use serde_json::Value;

/// The value of `-o` for `get`: kubectl's formats.
#[derive(Debug, Clone)]
pub enum OutputFormat {
    /// The kind's table (no `-o`).
    Table,
    /// `-o wide`.
    Wide,
    /// `-o name`: `TYPE/NAME`.
    Name,
    /// `-o json`.
    Json,
    /// `-o yaml`.
    Yaml,
    /// `-o jsonpath=TEMPLATE` (also `jsonpath-as-json=`, which prints each action's results as
    /// a JSON list), with the template as given.
    JsonPath {
        template: Template,
        raw: String,
        as_json: bool,
    },
    /// `-o custom-columns=HEADER:PATH,...`.
    CustomColumns(Vec<Column>),
}

impl OutputFormat {
    /// Reads `-o` as kubectl does. Errors name the formats there are
    /// (`unable to match a printer suitable for the output format "x", allowed formats are: ...`).
    pub fn parse(s: &str) -> Result<OutputFormat> {
        if let Some((kind, arg)) = s.split_once('=') {
            return match kind {
                "jsonpath" | "jsonpath-as-json" => {
                    if arg.is_empty() {
                        bail!("template format specified but no template given");
                    }
                    let template = Template::parse(arg)
                        .map_err(|e| anyhow!("error parsing jsonpath {arg}, {e}"))?;
                    Ok(OutputFormat::JsonPath {
                        template,
                        raw: arg.to_string(),
                        as_json: kind == "jsonpath-as-json",
                    })
                }
                "custom-columns" => Ok(OutputFormat::CustomColumns(columns::parse(arg)?)),
                _ => Err(unknown(s)),
            };
        }
        Ok(match s {
            "" => OutputFormat::Table,
            "wide" => OutputFormat::Wide,
            "name" => OutputFormat::Name,
            "json" => OutputFormat::Json,
            "yaml" => OutputFormat::Yaml,
            "jsonpath" | "jsonpath-as-json" => {
                bail!("template format specified but no template given")
            }
            "custom-columns" => {
                bail!("custom-columns format specified but no custom columns given")
            }
            _ => return Err(unknown(s)),
        })
    }

    /// Whether the kind's own table prints (the only formats that need the gates and the
    /// computed conditions).
    pub fn is_table(&self) -> bool {
        matches!(self, OutputFormat::Table | OutputFormat::Wide)
    }
}

/// The formats `-o` takes, as kubectl lists them in its error.
pub const FORMATS: &str = "custom-columns, json, jsonpath, jsonpath-as-json, name, wide, yaml";

fn unknown(s: &str) -> anyhow::Error {
    anyhow!(
        "unable to match a printer suitable for the output format {s:?}, allowed formats are: {FORMATS}"
    )
}

/// The printing flags of one listing, checked.
#[derive(Debug, Clone)]
pub struct PrintOptions {
    pub format: OutputFormat,
    /// `--no-headers`: tables and custom columns without their header line.
    pub no_headers: bool,
    /// `--show-labels`: a LABELS column last in tables.
    pub show_labels: bool,
    /// `--sort-by=PATH`: objects ordered by this field (kubectl's relaxed JSONPath), and the
    /// relaxed path (`{.a.b}`, for messages).
    pub sort_by: Option<(Template, String)>,
    /// `--show-managed-fields`: `json` and `yaml` keep `metadata.managedFields`.
    pub show_managed_fields: bool,
    /// Whether stdout is a terminal: what [`PrintOptions::machine`] prints is then made safe for
    /// it (see there). False unless set.
    pub terminal: bool,
}

impl PrintOptions {
    /// Checks the flags together, as kubectl does before it reads anything. Errors: an unknown
    /// `-o`, a bad template or column spec; `--show-labels` with another format than the table
    /// or `wide` (kubectl's `--show-labels option cannot be used with name printer`); a
    /// `--sort-by` that is not a relaxed path (kubectl's `unexpected path string, ...`) or does
    /// not parse.
    pub fn new(
        output: Option<&str>,
        no_headers: bool,
        show_labels: bool,
        sort_by: Option<&str>,
        show_managed_fields: bool,
    ) -> Result<PrintOptions> {
        let output = output.unwrap_or("");
        let format = OutputFormat::parse(output)?;
        if show_labels && !output.is_empty() && output != "wide" {
            bail!("--show-labels option cannot be used with {output} printer");
        }
        let sort_by = match sort_by {
            None | Some("") => None,
            Some(s) => Some(jsonpath::relaxed(s).map_err(|e| anyhow!("{e}"))?),
        };
        Ok(PrintOptions {
            format,
            no_headers,
            show_labels,
            sort_by,
            show_managed_fields,
            terminal: false,
        })
    }

    /// Orders `objects` by `--sort-by` (stable; see [`sort::sort_objects`]).
    pub fn sort(&self, objects: &mut [Value]) -> Result<()> {
        if let Some((t, text)) = &self.sort_by {
            sort::sort_objects(objects, t, text).map_err(|e| anyhow!("{e}"))?;
        }
        Ok(())
    }

    /// The output of the formats that do not depend on the kind, or None for the kind's table.
    /// `name_prefix` is what `-o name` prints before the slash; `single` is set when one object
    /// was asked for by name: `json`, `yaml` and `jsonpath` then print that object itself, not
    /// a List (as kubectl does). On a pipe the bytes are kubectl's; on a terminal
    /// ([`PrintOptions::terminal`]) no character that could drive it is printed raw
    /// ([`render::terminal_unsafe`]): `json` writes them as `\u202e` escapes and `yaml` in
    /// double quotes as `"\u202E"` (both read back to the same value), the jsonpath formats show
    /// them escaped on each line as the tables do. Errors: a bad jsonpath or column, and what
    /// kubectl's YAML printer refuses to write (`yaml: control characters are not allowed`).
    pub fn machine(
        &self,
        name_prefix: &str,
        objects: &[Value],
        single: bool,
    ) -> Result<Option<String>> {
        // The object or the List a format prints; `json` and `yaml` without managedFields.
        let data = |omit: bool| -> Value {
            let shown = |o: &Value| {
                let mut o = o.clone();
                if omit && !self.show_managed_fields {
                    omit_managed_fields(&mut o);
                }
                o
            };
            match (single, objects) {
                (true, [one]) => shown(one),
                _ => render::kube_list(objects.iter().map(shown).collect()),
            }
        };
        let terminal = self.terminal;
        Ok(Some(match &self.format {
            OutputFormat::Table | OutputFormat::Wide => return Ok(None),
            OutputFormat::Json => {
                let text = gofmt::marshal_indent(&data(true), "    ") + "\n";
                match terminal {
                    true => render::json_for_terminal(&text),
                    false => text,
                }
            }
            OutputFormat::Yaml => {
                let unprintable = match terminal {
                    true => render::terminal_unsafe,
                    false => |_| false,
                };
                emit::marshal_with(&data(true), unprintable).map_err(|e| anyhow!(e))?
            }
            OutputFormat::Name => {
                let names: Vec<String> = objects
                    .iter()
                    .map(|o| {
                        o.pointer("/metadata/name")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string()
                    })
                    .collect();
                render::names(name_prefix, &names)
            }
            OutputFormat::JsonPath {
                template,
                raw,
                as_json,
            } => {
                let text = template.execute(&data(false), *as_json).map_err(|e| {
                    // cli-runtime's JSONPathPrinter, without its dump of the whole object.
                    anyhow!(
                        "error executing jsonpath {raw:?}: Error executing template: {e}. \
                         Printing more information for debugging the template:\n\ttemplate \
                         was:\n\t\t{raw}"
                    )
                })?;
                match terminal {
                    true => render::safe_lines(&text),
                    false => text,
                }
            }
            OutputFormat::CustomColumns(cols) => {
                columns::render(cols, objects, !self.no_headers).map_err(|e| anyhow!("{e}"))?
            }
        }))
    }

    /// The LABELS cells of `--show-labels`, one per object, or None.
    pub fn labels(&self, objects: &[&Value]) -> Option<Vec<String>> {
        self.show_labels
            .then(|| objects.iter().map(|o| render::labels_cell(o)).collect())
    }
}

/// cli-runtime's `OmitManagedFieldsPrinter` on one object: `metadata.managedFields` removed
/// (`Unstructured.SetManagedFields(nil)`), whatever it holds; an object without a metadata map
/// is left as it is.
fn omit_managed_fields(o: &mut Value) {
    if let Some(meta) = o.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.shift_remove("managedFields");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn output_formats_as_kubectl_names_them() {
        assert!(matches!(
            OutputFormat::parse("").unwrap(),
            OutputFormat::Table
        ));
        assert!(matches!(
            OutputFormat::parse("wide").unwrap(),
            OutputFormat::Wide
        ));
        assert!(matches!(
            OutputFormat::parse("jsonpath={.kind}").unwrap(),
            OutputFormat::JsonPath { as_json: false, .. }
        ));
        assert!(matches!(
            OutputFormat::parse("custom-columns=NAME:.metadata.name").unwrap(),
            OutputFormat::CustomColumns(_)
        ));
        let e = OutputFormat::parse("tabel").unwrap_err().to_string();
        assert_eq!(e, format!("unable to match a printer suitable for the output format \"tabel\", allowed formats are: {FORMATS}"));
        assert_eq!(
            OutputFormat::parse("jsonpath=").unwrap_err().to_string(),
            "template format specified but no template given"
        );
    }

    /// kubectl prints one object asked for by name as itself, a listing as a List.
    #[test]
    fn one_object_by_name_is_printed_as_itself() {
        let objs = vec![json!({"kind": "Pacto", "metadata": {"name": "a"}})];
        let p = PrintOptions::new(Some("jsonpath={.kind}"), false, false, None, false).unwrap();
        assert_eq!(p.machine("pacto", &objs, true).unwrap().unwrap(), "Pacto");
        assert_eq!(p.machine("pacto", &objs, false).unwrap().unwrap(), "List");
        let p = PrintOptions::new(Some("name"), false, false, None, false).unwrap();
        assert_eq!(
            p.machine("pacto.pacto.trianalab.io", &objs, false)
                .unwrap()
                .unwrap(),
            "pacto.pacto.trianalab.io/a\n"
        );
    }

    /// kubectl's `-o json|yaml` leave managedFields out (cli-runtime `OmitManagedFieldsPrinter`,
    /// of the object and of each item of a List) and keep them with `--show-managed-fields`;
    /// jsonpath sees them either way.
    #[test]
    fn managed_fields_only_with_the_flag() {
        let objs = vec![json!({"apiVersion": "v1", "kind": "Pacto", "metadata": {
            "name": "a", "managedFields": [{"manager": "kubectl", "operation": "Apply"}]}})];
        let keeps = |format: &str, show: bool, single: bool| {
            let p = PrintOptions::new(Some(format), false, false, None, show).unwrap();
            p.machine("pacto", &objs, single)
                .unwrap()
                .unwrap()
                .contains("Apply")
        };
        for single in [true, false] {
            for format in ["json", "yaml"] {
                assert!(!keeps(format, false, single), "{format} {single}");
                assert!(keeps(format, true, single), "{format} {single}");
            }
            assert!(keeps("jsonpath={..operation}", false, single));
        }
        let p = PrintOptions::new(
            Some("jsonpath={.metadata.managedFields[0].manager}"),
            false,
            false,
            None,
            false,
        )
        .unwrap();
        assert_eq!(p.machine("pacto", &objs, true).unwrap().unwrap(), "kubectl");
        let p = PrintOptions::new(Some("yaml"), false, false, None, false).unwrap();
        assert_eq!(
            p.machine("pacto", &objs, true).unwrap().unwrap(),
            "apiVersion: v1\nkind: Pacto\nmetadata:\n  name: a\n"
        );
    }
}
