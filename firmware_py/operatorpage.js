// The operator page's script (firmware_py/operatorweb.py serves it inline): polls
// /operator.json twice a second and draws the same markup as operatorweb.body_html, in the
// words the view carries (d.words: the hall's language).
const e=v=>String(v??"").replace(/[&<>"']/g,c=>"&#"+c.charCodeAt(0)+";");
const w=v=>String(v).replace(/_/g," ");
let W={};
const s=(k,f)=>String(W[k]??k).replace(/\{(\w+)\}/g,(m,n)=>f&&n in f?f[n]:m);
function entry(n){if(!n)return `<p class="quiet">${e(s("no_entry"))}</p>`;
 const head=n.head?e(n.head):["what","team"].filter(k=>n[k]).map(k=>e(n[k]).toUpperCase()).join(" ");
 let o=(head||!n.prompt)?`<p class="big">${head||e(s("entry"))}</p>`:"";
 if(n.prompt)o+=`<p class="big">${e(n.prompt)}</p>`;
 const t=("typed" in n)?n.typed:n.player;o+=`<p class="typed">${t==null||t===""?"_":e(t)}</p>`;
 if(n.stage)o+=`<p class="quiet">${e(s("next",{stage:n.stage}))}</p>`;
 const to=n.timeout;if(to&&to.text)o+=`<p id="countdown" class="${to.in_s==null?"quiet":"late"}">${e(to.text)}</p>`;
 const keys=n.keys||(n.kinds||[]).map(k=>[k.split(" ")[0],k.split(" ").slice(1).join(" ")]);
 if(keys.length)o+='<table class="keys">'+keys.filter(p=>p.length==2).map(
  p=>`<tr><th>${e(p[0])}</th><td>${e(w(p[1]))}</td></tr>`).join("")+"</table>";return o}
function aud(x){if(!x)return "";return `<p id="audio" class="${x.alert?"late":"quiet"}">${e(x.text)}</p>`}
function sch(x){if(!x)return "";return `<p id="schedule" class="${x.behind_ms>0?"late":"quiet"}">${e(x.text)}</p>`}
function body(d){W=d.words||W;if(d.match==null)return `<p class="quiet">${e(s("waiting"))}</p>`;
 const t=d.teams,sc=d.score,f=d.feedback,of=d.office;
 const link=(of==null?s("no_office"):s(of.connected?"office":"office_offline",{n:of.unacked}))+(of&&of.problem?" \u00b7 "+s("office_problem",{reason:of.problem}):"")+(of&&of.cannot_store_since?" \u00b7 "+s("office_cannot_store",{since:of.cannot_store_since}):"")+(of&&of.refused?of.refused.map(r=>" \u00b7 "+s("office_refuses",{match:r.match,hall:r.hall})).join(""):"");
 const rec=d.records.map(r=>`<tr><th>${r.key==null?"-":e(r.key)}</th><td>${r.text?e(r.text):e(r.what)+" "+e(r.team)+(r.player!=null?" #"+e(r.player):"")+(r.kind?" "+e(w(r.kind)):"")}</td><td>P${e(r.period)} ${e(r.clock)}</td><td>${r.undo_next?e(s("undo")):""}</td></tr>`).join("");
 const kinds=d.kinds.map(k=>`<tr><th>${e(k.key)}</th><td>${e(k.text??w(k.name))}</td><td>${e(s("minutes",{n:k.minutes}))}</td></tr>`).join("");
 const ban=["home","away"].map(x=>`${e(t[x])}: ${(d.suspensions[x]||[]).map(p=>"#"+e(p)).join(", ")||e(s("none"))}.`).join(" ");
 const to=d.timed_out,res=d.result;
 return `<section id="feedback">${f?`<p class="${f.accepted?"ok":"refused"}">${e(f.text)}</p>`:""}${to?`<p id="timed-out" class="late">${e(to.text)}</p>`:""}</section>`+
 `<section id="entry">${entry(d.entry)}</section>`+
  `<section id="game"><p class="big">${e(t.home)} ${e(sc.home)} : ${e(sc.away)} ${e(t.away)}</p>${res?`<p id="result" class="ok">${e(res.text)}</p>`:""}`+
  `<p>${e(d.match)}${d.replay?" "+e(s("replay")):""} ${e(d.phase_text??d.phase)} ${e(d.period)}  <b>${e(d.clock)}</b> ${e(s(d.running?"running":"stopped"))}${d.horn?"  "+e(s("horn")):""}</p><p class="quiet">${e(link)}</p>${aud(d.audio)}${sch(d.schedule)}</section>`+
  `<section id="records"><h2>${e(s("records"))}</h2><table>${rec}</table></section>`+
  `<section id="kinds"><h2>${e(s("kinds"))}</h2><table>${kinds}</table></section>`+
  `<section id="suspended"><h2>${e(s("suspended"))}</h2><p>${ban}</p></section>`}
let last="";
async function poll(){try{const r=await fetch("/operator.json",{cache:"no-store"});
 const text=await r.text();if(text!==last){last=text;
 document.getElementById("view").innerHTML=body(JSON.parse(text));}
 document.body.classList.remove("lost")}catch(err){document.body.classList.add("lost")}
 setTimeout(poll,500)}
setTimeout(poll,500);
