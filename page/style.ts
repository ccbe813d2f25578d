// The one stylesheet of every page kgate writes, and the few lines of script the copy buttons and
// the matrix filter use. Every state is an icon, a word and a colour (the page reads without
// colour), colours pass WCAG AA against their background, and the print rules put every page on
// paper without buttons, with its colours kept.

/** The stylesheet, inlined into every page (nothing is fetched). */
export const STYLE = `
:root{--ink:#1d232a;--muted:#5b6470;--line:#d6dbe1;--bg:#f6f7f9;--link:#0b4f8a;--pass:#0b6b50;--pass-bg:#dcf1e8;--fail:#b3400b;--fail-bg:#b3400b;--known:#4a3a80;--known-bg:#e8e3f5;--warn:#6b4a00;--warn-bg:#fbeec2;--skip:#4f5660;--skip-bg:#eceef1;--info:#0b4f8a;--info-bg:#e1ecf7}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--ink);background:var(--bg)}
main{max-width:1320px;margin:0 auto;padding:16px 20px 40px}
code,pre{font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
a{color:var(--link)}
.banner{display:flex;gap:20px;align-items:stretch;border-radius:10px;padding:0;overflow:hidden;background:#fff;border:1px solid var(--line);margin-bottom:16px}
.banner .verdict{display:flex;flex-direction:column;justify-content:center;align-items:center;min-width:150px;padding:14px 18px;color:#fff}
.banner.pass .verdict{background:var(--pass)}
.banner.fail .verdict{background:var(--fail)}
.banner.info .verdict{background:var(--info)}
.banner .icon{font-size:40px;line-height:1}
.banner .word{font-size:30px;font-weight:800;letter-spacing:.06em}
.banner .about{padding:12px 16px 12px 0;flex:1;min-width:0}
h1{font-size:20px;margin:0 0 6px}
.headline{font-weight:400;color:var(--muted)}
.facts{display:flex;flex-wrap:wrap;gap:4px 22px;margin:0 0 10px}
.facts div{display:flex;gap:6px;min-width:0}
.facts dt{color:var(--muted)}
.facts dd{margin:0;font-weight:600;overflow-wrap:anywhere}
.counts{display:flex;flex-wrap:wrap;gap:8px;list-style:none;margin:0;padding:0}
.chip{border-radius:999px;padding:3px 12px;border:1px solid var(--line);background:#fff}
.chip.pass{background:var(--pass-bg);color:var(--pass);border-color:#9fd3bf}
.chip.fail{background:var(--fail-bg);color:#fff;border-color:var(--fail)}
.chip.known{background:var(--known-bg);color:var(--known)}
.chip.warn{background:var(--warn-bg);color:var(--warn);border-color:#e6c86e}
.chip.skip{background:var(--skip-bg);color:var(--skip)}
.chip.info{background:var(--info-bg);color:var(--info)}
.chip.zero{color:var(--muted)}
.part{background:#fff;border:1px solid var(--line);border-radius:10px;padding:12px 16px;margin:0 0 16px}
.part.fail{border-left:6px solid var(--fail)}
.part.warn{border-left:6px solid #c99a14}
.part.known{border-left:6px solid var(--known)}
.part.changes{border-left:6px solid var(--link)}
h2{font-size:17px;margin:2px 0 8px}
h2 .n{font-size:13px;font-weight:600;color:var(--muted);background:var(--bg);border-radius:999px;padding:1px 8px;vertical-align:2px}
h3{font-size:14px;margin:10px 0 4px}
.intro{color:var(--muted);margin:0 0 8px}
.fail-text{color:var(--fail);font-weight:700}
.pass-text{color:var(--pass);font-weight:700}
.tools{margin:0 0 6px;color:var(--muted)}
.scroll{overflow-x:auto}
.grid{border-collapse:separate;border-spacing:2px;font-size:12px}
.grid th{font-weight:600;text-align:left;white-space:nowrap}
.grid thead th{text-align:center;vertical-align:bottom;padding:2px 3px;position:sticky;top:0;background:#fff;font-size:11.5px;max-width:80px;white-space:normal;line-height:1.2}
.grid thead th span,.grid thead th small{display:block}
.grid thead th small{color:var(--muted);font-weight:400}
.grid thead th.corner{text-align:left;color:var(--muted);font-weight:400}
.grid tbody th{padding:2px 8px 2px 0}
.grid tbody th a{color:inherit;text-decoration:none}
.grid td{text-align:center;border-radius:4px;min-width:54px;padding:0;white-space:nowrap}
.grid td>a,.grid td>span{display:block;padding:3px 4px;color:inherit;text-decoration:none}
.grid td a:hover,.grid td a:focus{outline:2px solid var(--link);outline-offset:-2px;border-radius:4px}
td.pass{background:var(--pass-bg);color:var(--pass)}
td.fail{background:var(--fail-bg);color:#fff;font-weight:800}
td.known{background:var(--known-bg);color:var(--known);font-weight:600}
td.warn{background:var(--warn-bg);color:var(--warn);font-weight:600}
td.skip{background:var(--skip-bg);color:var(--skip);font-style:italic}
td.na{color:#a3aab3}
.only tr.clean{display:none}
.legend{color:var(--muted);font-size:12.5px;margin:8px 0 0}
.key,.mark{display:inline-block;border-radius:4px;padding:0 6px;margin-right:2px;white-space:nowrap}
.key.pass,.mark.pass{background:var(--pass-bg);color:var(--pass)}
.key.fail,.mark.fail{background:var(--fail-bg);color:#fff;font-weight:700}
.key.known,.mark.known{background:var(--known-bg);color:var(--known)}
.key.warn,.mark.warn{background:var(--warn-bg);color:var(--warn)}
.key.skip,.mark.skip{background:var(--skip-bg);color:var(--skip)}
.key.info,.mark.info{background:var(--info-bg);color:var(--info)}
.tag{font-size:11px;border:1px solid #c99a14;color:var(--warn);border-radius:4px;padding:0 4px}
.finding{border:1px solid var(--line);border-radius:8px;padding:8px 12px;margin:10px 0;scroll-margin-top:12px}
.finding:target{outline:3px solid var(--link)}
.finding h3{margin:0 0 6px;font-size:14px;overflow-wrap:anywhere}
.badge{display:inline-block;border-radius:4px;padding:0 6px;font-size:12px;font-weight:800}
.badge.fail{background:var(--fail-bg);color:#fff}
.badge.known{background:var(--known-bg);color:var(--known)}
.badge.warn{background:var(--warn-bg);color:var(--warn)}
.badge.pass{background:var(--pass-bg);color:var(--pass)}
.badge.info{background:var(--info-bg);color:var(--info)}
.badge.skip{background:var(--skip-bg);color:var(--skip)}
.seen{color:var(--muted);font-weight:400}
.finding dl{margin:0;display:grid;grid-template-columns:max-content 1fr;gap:2px 12px}
.finding dl div{display:contents}
.finding dt{color:var(--muted)}
.finding dd{margin:0;overflow-wrap:anywhere;white-space:pre-wrap;min-width:0}
.places{margin:4px 0 0;padding-left:20px;columns:2 320px}
.places li{overflow-wrap:anywhere}
.curl{display:flex;gap:8px;align-items:flex-start;margin-top:6px}
.curl .label{color:var(--muted);padding-top:5px;white-space:nowrap}
.curl .text{flex:1;min-width:0}
.curl pre{margin:0;background:#1d232a;color:#f1f3f5;border-radius:6px;padding:6px 10px;white-space:pre-wrap;overflow-wrap:anywhere}
.fold summary{cursor:pointer;color:var(--link);margin:2px 0}
.fold summary>.start{display:inline-block;vertical-align:top;width:calc(100% - 1.5em);color:inherit}
.fold summary>code.start,.fold summary>span.start{color:var(--ink)}
.fold[open] .start{display:none}
.copy{font:inherit;font-size:12px;border:1px solid var(--line);background:#fff;border-radius:6px;padding:4px 10px;cursor:pointer}
.copy:hover{background:var(--bg)}
.items{margin:4px 0;padding-left:20px}
.items li{margin:2px 0;overflow-wrap:anywhere}
.items li:target{outline:3px solid var(--link)}
.data{border-collapse:collapse;font-size:13px;width:100%}
.data th,.data td{border-bottom:1px solid var(--line);padding:4px 12px 4px 0;text-align:left;vertical-align:top}
.data thead th{color:var(--muted);font-weight:600}
.data tbody th{font-weight:500}
.data td.num,.data th.num{text-align:right}
.data tr.fail td,.data tr.fail th{background:#fdf0ea}
.checks{display:grid;grid-template-columns:max-content 1fr;gap:4px 14px;margin:0}
.checks div{display:contents}
.checks dd{margin:0;color:var(--muted)}
.checks div:target dt,.checks div:target dd{background:#fff7d6}
.chart{width:100%;height:auto;display:block;max-width:900px}
.chart-title{font-size:15px;font-weight:600;fill:var(--ink)}
.panel-title{font-size:13px;font-weight:700}
.gridline{stroke:#e4e7eb}
.axis{stroke:#7b8794}
.tick{font-size:11px;fill:#3e4c59}
.chart-legend{font-size:12px;fill:#3e4c59}
.charts{display:grid;grid-template-columns:1fr;gap:12px}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:12px;max-width:760px}
.lane{white-space:nowrap}
.lane svg{display:block}
footer{color:var(--muted);font-size:12.5px}
@media print{
body{background:#fff;font-size:11px}
code,pre{font-size:10px}
main{max-width:none;padding:0}
*{-webkit-print-color-adjust:exact;print-color-adjust:exact}
.tools,.copy{display:none}
.part,.banner{border-color:#999;break-inside:auto}
.finding,.grid tr,.data tr,.chart{break-inside:avoid}
.grid{font-size:9px}
.grid td{min-width:0}
.scroll{overflow:visible}
a{color:inherit;text-decoration:none}
.curl pre{background:#fff;color:#000;border:1px solid #999}
.fold summary{color:#000}
}
`.trim();

/**
 * The pages' only script: copy buttons (copy the whole text of the element they name, a folded
 * line included; where the clipboard is refused, the text is selected) and the matrix filter.
 * Nothing on a page needs it to be read.
 */
export const SCRIPT = `
document.addEventListener('click',function(event){
  var button=event.target.closest&&event.target.closest('button.copy');
  if(!button)return;
  var source=document.getElementById(button.getAttribute('data-copy'));
  if(!source)return;
  var done=function(){button.textContent='Copied';setTimeout(function(){button.textContent='Copy';},1500);};
  var select=function(){
    var details=source.closest&&source.closest('details');if(details)details.open=true;
    var range=document.createRange();range.selectNodeContents(source);
    var selection=window.getSelection();selection.removeAllRanges();selection.addRange(range);
    try{if(document.execCommand('copy')){done();return;}}catch(e){}
    button.textContent='Selected: Ctrl+C';
  };
  var settled=false;
  var finish=function(copied){if(settled)return;settled=true;if(copied)done();else select();};
  if(navigator.clipboard&&window.isSecureContext){
    navigator.clipboard.writeText(source.textContent).then(function(){finish(true);},function(){finish(false);});
    // A browser that neither grants nor refuses (a file:// page, a headless one): select the text instead.
    setTimeout(function(){finish(false);},800);
  }else finish(false);
});
var only=document.getElementById('only-findings');
if(only)only.addEventListener('change',function(){document.querySelector('table.grid').classList.toggle('only',only.checked);});
`.trim();
