"""The HTML report fits its window: every table sits in a box that scrolls sideways on a narrow
screen (no column cut, the page itself does not scroll sideways), long set labels may wrap at
their parts, the page declares a device-width viewport. (Checked by eye in headless Chromium at 1400 px and 500
px; CHANGELOG.)"""
import re

from bench.reporting.report import markup as M


def test_tables_scroll_in_their_own_box_and_labels_may_wrap():
    html = M.html_table([("set", "set", "text"), ("v", "value", "num")],
                        [{"set": "BACKTRANS[cat+cat-spa+epo+glg+spa,apertium]", "v": "0.4432 [0.4145, 0.4718]"}])
    assert html.startswith('<div class="tw"><table>') and html.endswith("</table></div>")
    assert "BACKTRANS[<wbr>cat+<wbr>cat-spa+<wbr>epo+<wbr>glg+<wbr>spa,<wbr>apertium]" in html
    assert "0.4432 [0.4145, 0.4718]" in html  # numbers are not broken
    assert "div.tw{overflow-x:auto" in M.CSS and "td.text{white-space:nowrap}" not in M.CSS
    page = M.page("t", [html])
    assert re.search(r'<meta name="viewport" content="width=device-width, initial-scale=1">', page)
