"""The release reader: columns by name, label mapping, seeded candidate order,
and one located error (file, line, column) per kind of bad input."""

import os
import re

import pytest

from data_builders.blm_published import release_format as rf
from data_builders.common import labels
from tests.release_fixtures import (MAPPED_LABELS, RAW_LABELS, release_rows,
                              write_release)


def _expect_error(path, pattern, **kwargs):
  with pytest.raises(rf.ReleaseFormatError) as info:
    rf.read_release(path, **kwargs)
  message = str(info.value)
  assert message.startswith(str(path)), message
  assert re.search(pattern, message), message
  return info.value


def _agreement_file(tmp_path, rows, **kwargs):
  return write_release(tmp_path / "agreement_en" / "type_II" / "data.tsv",
                       rows, **kwargs)


# -- Well-formed files --------------------------------------------------------


def test_reads_instances_with_mapped_labels_and_fields(tmp_path):
  path = _agreement_file(tmp_path, release_rows(5))
  release = rf.read_release(path, shuffle=False)
  assert release.family == "agreement"
  assert not release.skipped and not release.notes
  x = release.instances[2]
  assert x.id == "00002"
  assert (x.language, x.lexical_type, x.subset) == ("en", "II", "")
  assert x.labels == MAPPED_LABELS and x.raw_labels == RAW_LABELS
  assert x.correct == 0
  assert x.answers[0].text == "The kettle2s near the hills glow ."
  assert x.context[1].pattern == "Subj_2 V_2"
  assert x.answers[3].pattern == "Subj_a4 V_a4"
  assert x.context[0].chunks == ("The kettle2", "the hill glows", ".")
  assert len(x.context) == 3 and len(x.answers) == 4


@pytest.mark.parametrize("id_column", ["ID", "", "Unnamed: 0"])
def test_columns_are_read_by_name_in_any_order(tmp_path, id_column):
  rows = release_rows(4)
  columns = sorted(rows[0], reverse=True)  # Answers before sentences, etc.
  path = _agreement_file(tmp_path, rows, columns=columns, id_column=id_column)
  ordered = rf.read_release(_agreement_file(tmp_path / "b", rows))
  assert rf.read_release(path).instances == ordered.instances


def test_templates_and_chunks_are_optional(tmp_path):
  rows = release_rows(3)
  columns = [c for c in rows[0] if "template" not in c and "chunks" not in c]
  x = rf.read_release(_agreement_file(tmp_path, rows, columns=columns),
                      shuffle=False).instances[0]
  assert x.context[0].pattern == "" and x.context[0].chunks == ()
  assert x.labels == MAPPED_LABELS


def test_candidate_order_is_seeded_per_instance(tmp_path):
  path = _agreement_file(tmp_path, release_rows(40))
  a = rf.read_release(path).instances
  assert a == rf.read_release(path).instances  # Deterministic.
  assert {x.correct for x in a} == {0, 1, 2, 3}  # Position carries nothing.
  for x in a:
    assert x.labels[x.correct] == "Corr"
    assert x.answers[x.correct].text.endswith("s near the hills glow .")
    assert sorted(x.raw_labels) == sorted(RAW_LABELS)
  other_seed = rf.read_release(path, seed=1).instances
  assert [x.correct for x in other_seed] != [x.correct for x in a]


def test_family_can_be_given_and_papers_names_are_accepted(tmp_path):
  rows = release_rows(3)
  for r in rows:
    for k, lab in enumerate(MAPPED_LABELS, start=1):
      r[f"Answer_label_{k}"] = lab
  release = rf.read_release(_agreement_file(tmp_path, rows),
                            family="agreement", shuffle=False)
  assert release.instances[0].labels == MAPPED_LABELS
  assert release.instances[0].raw_labels == MAPPED_LABELS


def test_repeated_ids_get_a_content_hash(tmp_path):
  rows = release_rows(4)
  rows[3]["ID"] = rows[1]["ID"] = "7"
  ids = [x.id for x in rf.read_release(_agreement_file(tmp_path, rows),
                                       id_prefix="p/").instances]
  assert len(set(ids)) == 4
  assert ids[0] == "p/00000"
  assert re.fullmatch(r"p/00007~[0-9a-f]{8}", ids[1]) and ids[1] != ids[3]


def test_read_folder_keeps_ids_consistent_across_files(tmp_path):
  rows = release_rows(6)
  rows[4]["ID"] = rows[5]["ID"] = "9"  # Repeated in all.tsv only.
  folder = tmp_path / "agreement_en" / "type_I"
  write_release(folder / "all.tsv", rows)
  write_release(folder / "train.tsv", rows[:4] + rows[5:])
  write_release(folder / "test.tsv", rows[4:5])
  files = rf.read_folder(folder)
  assert list(files) == ["train", "test", "all"]
  ids = {k: {x.id for x in f.instances} for k, f in files.items()}
  assert ids["train"] | ids["test"] == ids["all"]
  assert not ids["train"] & ids["test"]


def test_pandas_repeated_column_reads_the_first_and_notes_it(tmp_path):
  rows = release_rows(2)
  columns = list(rows[0])
  for r in rows:
    r["Answer_2.1"] = "an ignored repeat ."
  path = _agreement_file(tmp_path, rows, columns=columns + ["Answer_2.1"])
  release = rf.read_release(path, shuffle=False)
  assert release.instances[0].answers[1].text.endswith("hills glows .")
  assert len(release.notes) == 1
  assert "column 31 ('Answer_2.1')" in release.notes[0]


def test_source_info_follows_the_release_layout(tmp_path):
  info = rf.source_info(tmp_path / "spray_load_en" / "ALT-ATL" / "type_III")
  assert info == {"language": "en", "lexical_type": "III",
                  "subset": "ALT-ATL"}
  assert rf.source_info(tmp_path / "x")["lexical_type"] == ""


# -- Bad input: one error naming file, line and column ------------------------


def test_missing_required_column(tmp_path):
  rows = release_rows(3)
  columns = [c for c in rows[0] if c != "Answer_value_3"]
  path = _agreement_file(tmp_path, rows, columns=columns)
  err = _expect_error(path, r"line 1, column Answer_value_3: missing required "
                      r"column Answer_value_3 \(the header has Answer_value_N "
                      r"for N in \[1, 2, 4\]\)")
  assert err.line == 1


def test_missing_id_column(tmp_path):
  rows = release_rows(2)
  columns = [c for c in rows[0] if c != "ID"]
  _expect_error(_agreement_file(tmp_path, rows, columns=columns),
                r"line 1: missing required id column")


def test_row_with_too_many_fields(tmp_path):
  path = _agreement_file(tmp_path, release_rows(4))
  lines = open(path, encoding="utf-8").read().split("\n")
  lines[2] += "\tstray"
  open(path, "w", encoding="utf-8").write("\n".join(lines))
  _expect_error(path, r"line 3, column 31: row has 31 fields but the header "
                r"has 30: 1 extra field\(s\) from column 31 on")


def test_row_with_too_few_fields(tmp_path):
  path = _agreement_file(tmp_path, release_rows(4))
  lines = open(path, encoding="utf-8").read().split("\n")
  lines[3] = "\t".join(lines[3].split("\t")[:20])
  open(path, "w", encoding="utf-8").write("\n".join(lines))
  _expect_error(path, r"line 4, column 21 \('Answer_3'\): row has 20 "
                r"fields but the header has 30: columns from 21 \('Answer_3'\) "
                r"on are missing")


def test_zero_true_answer_values(tmp_path):
  rows = release_rows(3)
  rows[1]["Answer_value_1"] = "False"
  _expect_error(_agreement_file(tmp_path, rows),
                r"line 3, column 12 \('Answer_value_1'\): expected exactly one "
                r"True answer value, found 0")


def test_two_true_answer_values(tmp_path):
  rows = release_rows(3)
  rows[2]["Answer_value_3"] = "True"
  _expect_error(_agreement_file(tmp_path, rows),
                r"line 4, column 22 \('Answer_value_3'\): expected exactly one "
                r"True answer value, found 2 \(in \['Answer_value_1', "
                r"'Answer_value_3'\]\)")


def test_value_neither_true_nor_false(tmp_path):
  rows = release_rows(3)
  rows[0]["Answer_value_2"] = "Maybe"
  _expect_error(_agreement_file(tmp_path, rows),
                r"line 2, column 17 \('Answer_value_2'\): answer value 'Maybe' "
                r"is neither True nor False")


def test_non_utf8_bytes(tmp_path):
  rows = release_rows(3)
  rows[1]["Sent_2"] = "Le café est chaud ."
  path = _agreement_file(tmp_path, rows, encoding="latin-1")
  _expect_error(path, r"line 3, column 5 \('Sent_2'\): bytes b'\\xe9' at byte "
                r"\d+ of the line are not UTF-8")


def test_truncated_last_line(tmp_path):
  path = _agreement_file(tmp_path, release_rows(3))
  data = open(path, "rb").read()
  open(path, "wb").write(data[:-150])  # Cut mid-row, no final newline.
  _expect_error(path, r"line 4, column \d+ \('\w+'\): truncated last line: it "
                r"has \d+ of the header's 30 fields and the file ends without "
                r"a newline")


def test_truncated_inside_a_quoted_field(tmp_path):
  path = _agreement_file(tmp_path, release_rows(3))
  with open(path, "a", encoding="utf-8") as f:
    f.write('3\t"The unfinished')
  _expect_error(path, r"line 5, column 2 \('Sent_1'\): truncated last line: "
                r"the file ends inside a "
                r"quoted field")


def test_unparseable_chunks_literal(tmp_path):
  rows = release_rows(3)
  rows[2]["Answer_chunks_2"] = "['The lamp', 'glows'"
  _expect_error(_agreement_file(tmp_path, rows),
                r"line 4, column 20 \('Answer_chunks_2'\): chunks "
                r"\"\['The lamp', 'glows'\" are not a Python list literal "
                r"\(SyntaxError")


def test_chunks_are_never_evaluated(tmp_path):
  marker = tmp_path / "evaluated"
  rows = release_rows(2)
  rows[0]["Sent_chunks_1"] = f"__import__('pathlib').Path({str(marker)!r}).touch()"
  _expect_error(_agreement_file(tmp_path, rows),
                r"line 2, column 4 \('Sent_chunks_1'\): chunks .* are not a "
                r"Python list literal \(ValueError")
  assert not marker.exists()


def test_chunks_must_be_a_list_of_strings(tmp_path):
  rows = release_rows(2)
  rows[1]["Sent_chunks_3"] = "[1, 2]"
  _expect_error(_agreement_file(tmp_path, rows),
                r"line 3, column 10 \('Sent_chunks_3'\): chunks '\[1, 2\]' are "
                r"not a list of strings")


def test_unknown_label(tmp_path):
  rows = release_rows(3)
  rows[1]["Answer_label_4"] = "N9_alter"
  _expect_error(_agreement_file(tmp_path, rows),
                r"line 3, column 28 \('Answer_label_4'\): label 'N9_alter' is "
                r"not in the agreement inventory")


def test_label_contradicting_its_value(tmp_path):
  rows = release_rows(3)
  rows[0]["Answer_label_2"] = "True"
  _expect_error(_agreement_file(tmp_path, rows),
                r"line 2, column 18 \('Answer_label_2'\): label 'True' \(Corr\) "
                r"contradicts its answer value False")


def test_repeated_row(tmp_path):
  rows = release_rows(3)
  rows.append(dict(rows[1]))
  _expect_error(_agreement_file(tmp_path, rows),
                r"line 5, column 1 \('ID'\): row repeats line 3")


def test_family_that_cannot_be_inferred(tmp_path):
  rows = release_rows(2)
  for r in rows:
    for k in range(2, 5):
      r[f"Answer_label_{k}"] = "mystery"
  _expect_error(_agreement_file(tmp_path, rows),
                r"line 1, column Answer_label_\*: the labels .* belong to no "
                r"known family")


def test_empty_and_header_only_files(tmp_path):
  empty = tmp_path / "empty.tsv"
  empty.write_text("")
  _expect_error(empty, r"line 1: the file is empty")
  header_only = tmp_path / "header.tsv"
  header_only.write_text("ID\tSent_1\tAnswer_1\n")
  _expect_error(header_only, r"line 2: the file has a header but no rows")


# -- The explicit skip option -------------------------------------------------


def test_skip_bad_rows_counts_and_reports_them(tmp_path):
  rows = release_rows(6)
  rows[1]["Answer_value_2"] = "True"
  rows[4]["Sent_chunks_1"] = "[oops"
  path = _agreement_file(tmp_path, rows)
  with pytest.raises(rf.ReleaseFormatError):
    rf.read_release(path)
  release = rf.read_release(path, skip_bad_rows=True)
  assert [x.id for x in release.instances] == [
      "00000", "00002", "00003", "00005"]
  assert [(e.line, e.column) for e in release.skipped] == [
      (3, "17 ('Answer_value_2')"), (6, "4 ('Sent_chunks_1')")]


def test_skip_bad_rows_does_not_hide_file_level_errors(tmp_path):
  rows = release_rows(3)
  columns = [c for c in rows[0] if c != "Answer_label_2"]
  path = _agreement_file(tmp_path, rows, columns=columns)
  _expect_error(path, r"missing required column Answer_label_2",
                skip_bad_rows=True)


# -- Folder discovery ---------------------------------------------------------


def test_release_files_layouts(tmp_path):
  single = tmp_path / "single"
  write_release(single / "blm.tsv", release_rows(2))
  assert list(rf.release_files(single)) == ["blm"]
  half = tmp_path / "half"
  write_release(half / "train.tsv", release_rows(2))
  with pytest.raises(rf.ReleaseFormatError, match=r"half: has train.tsv but "
                     r"no test.tsv"):
    rf.release_files(half)
  several = tmp_path / "several"
  write_release(several / "a.tsv", release_rows(2))
  write_release(several / "b.tsv", release_rows(2))
  with pytest.raises(rf.ReleaseFormatError, match=r"several release files"):
    rf.release_files(several)
  with pytest.raises(rf.ReleaseFormatError, match=r"holds no release file"):
    rf.release_files(tmp_path / "half" / "..")


def test_known_labels_cover_every_published_inventory():
  for family, mapping in labels.PUBLISHED_LABELS.items():
    known = rf.known_labels(family)
    for raw, name in mapping.items():
      assert known[raw] == name
    assert rf.infer_family(list(mapping)) == [family]


def test_a_release_file_without_newlines_is_refused_at_the_line_bound(
    tmp_path):
  path = tmp_path / "huge.tsv"
  with open(path, "wb") as f:
    f.truncate(2 * 1024**3)  # 2 GB of NUL bytes, no newline, no disk.
  with pytest.raises(rf.ReleaseFormatError) as e:
    rf.read_release(str(path))
  assert str(e.value).startswith(
      f"{path}, line 1: line longer than 1,000,000 bytes")
