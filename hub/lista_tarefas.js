/* Lista de tarefas do aluno no hub: a situação de cada entrega, sem clique.
   Acrescentado pelo hub (hub/lista_tarefas.py) ao começo do código da lista de tarefas do nbgrader.
   A cada segundo consulta <base>/curso/estado (hub/curso_estado.py) e mostra, em cada entrega, a data
   no fuso do curso, a situação (na fila, corrigindo, corrigida com a nota automática, recusada com o
   motivo, substituída) e se o retorno está pronto; "Buscar retorno" só fica clicável quando há o que buscar. */
(function () {
  if (window.cursoEntrega) { return; }
  var estado = null;
  var base = "/";
  try {
    base = JSON.parse(document.getElementById("jupyter-config-data").textContent).baseUrl || "/";
  } catch (e) { /* sem a configuração da página: a raiz */ }
  function dataHora(carimbo) {
    var m = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)/.exec(carimbo || "");
    if (!m) { return carimbo; }
    var d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]));
    var opcoes = {day: "2-digit", month: "2-digit", year: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit"};
    if (estado && estado.fuso) { opcoes.timeZone = estado.fuso; }
    try { return new Intl.DateTimeFormat("pt-BR", opcoes).format(d); } catch (e) { return d.toLocaleString("pt-BR"); }
  }
  function numero(x) {
    return (Math.round((+x || 0) * 100) / 100).toLocaleString("pt-BR", {maximumFractionDigits: 2});
  }
  function pontos(x) { return numero(x) + (+x === 1 ? " ponto" : " pontos"); }
  function itens(atividade) { return (estado && estado.entregas && estado.entregas[atividade]) || []; }
  function itemDe(atividade, carimbo) {
    var l = itens(atividade);
    for (var i = 0; i < l.length; i++) { if (l[i].carimbo === carimbo) { return l[i]; } }
    return null;
  }
  function texto(it) {
    switch (it.estado) {
      case "na fila": return "na fila para correção";
      case "corrigindo": return "corrigindo…";
      case "corrigida":
        var t = "corrigida: nota automática " + numero(it.automatica) + " de " + numero(it.maximo_automatico);
        if (+it.pendente > 0) { t += "; " + pontos(it.pendente) + " aguardando correção do professor"; }
        if (it.motivo) { t += " (" + it.motivo + ")"; }
        return t + (it.retorno_local ? "" : ". Retorno pronto: clique em Buscar retorno");
      case "recusada": return "recusada: " + (it.motivo || "");
      case "substituída":
      case "superada": return "substituída: " + (it.motivo || "chegou uma entrega mais nova");
      case "erro": return "erro na correção: " + (it.motivo || "");
      default: return it.estado;
    }
  }
  function desenhar(span) {
    var quando = span.querySelector(".curso-quando");
    var sit = span.querySelector(".curso-situacao");
    var link = span.querySelector(".curso-abrir-retorno");
    quando.textContent = dataHora(span.dataset.carimbo);
    var it = itemDe(span.dataset.atividade, span.dataset.carimbo);
    if (!estado) { return; }
    if (!it) {
      sit.textContent = " · enviada; esperando o serviço de correção";
      sit.dataset.estado = "enviada";
      link.style.display = "none";
      return;
    }
    sit.textContent = " · " + texto(it);
    sit.dataset.estado = it.estado;
    if (it.retorno_local) {
      link.style.display = "";
      link.href = base + "files/" + it.retorno_local.split("/").map(encodeURIComponent).join("/");
    } else {
      link.style.display = "none";
    }
  }
  function ajustarBotao(b) {
    if (b.innerText !== b.dataset.rotulo) { return; }  /* buscando agora: não mexe */
    var pronto = itens(b.dataset.atividade).some(function (it) { return it.estado === "corrigida" && !it.retorno_local; });
    if (pronto) {
      b.removeAttribute("disabled");
      b.title = "Buscar o retorno da correção";
    } else {
      b.setAttribute("disabled", "disabled");
      b.title = "Nada para buscar ainda: o botão acende quando a correção terminar";
    }
  }
  function desenharRecusas() {
    var lista = document.getElementById("submitted_assignments_list");
    if (!lista) { return; }
    var caixa = document.getElementById("curso-recusas");
    var recusas = (estado && estado.recusas) || [];
    if (!recusas.length) { if (caixa) { caixa.remove(); } return; }
    if (!caixa) {
      caixa = document.createElement("div");
      caixa.id = "curso-recusas";
      caixa.className = "list_item row";
      caixa.style.color = "#a94442";
      lista.prepend(caixa);
    }
    var ultimas = recusas.slice(-5).reverse();
    caixa.textContent = "";
    var titulo = document.createElement("div");
    titulo.textContent = "Entradas recusadas pelo serviço de correção (" + estado.recusas_total + " no total; as mais recentes):";
    caixa.append(titulo);
    ultimas.forEach(function (r) {
      var linha = document.createElement("div");
      var quando = new Date(r.quando * 1000);
      var opcoes = estado.fuso ? {timeZone: estado.fuso} : {};
      linha.textContent = "• " + quando.toLocaleString("pt-BR", opcoes) + ": " + r.motivo;
      caixa.append(linha);
    });
  }
  function atualizar() {
    document.querySelectorAll(".curso-entrega").forEach(desenhar);
    document.querySelectorAll(".curso-buscar-retorno").forEach(ajustarBotao);
    desenharRecusas();
  }
  var consultando = false;
  function consultar() {
    if (consultando || !document.getElementById("submitted_assignments_list")) { return; }
    consultando = true;
    /* o JupyterHub exige o token XSRF também nos GET de API autenticados pelo cookie */
    var xsrf = (document.cookie.match(/(?:^|;\s*)_xsrf=([^;]*)/) || [])[1];
    var cabecalhos = xsrf ? {"X-XSRFToken": decodeURIComponent(xsrf)} : {};
    fetch(base + "curso/estado", {credentials: "same-origin", cache: "no-store", headers: cabecalhos})
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (d) { if (d) { estado = d; atualizar(); } })
      .catch(function () { /* o servidor reiniciando: tenta no próximo segundo */ })
      .then(function () { consultando = false; });
  }
  window.cursoEntrega = function (d) {
    var span = document.createElement("span");
    span.className = "curso-entrega";
    span.dataset.atividade = d.assignment_id;
    span.dataset.carimbo = d.timestamp;
    var quando = document.createElement("span");
    quando.className = "curso-quando";
    var sit = document.createElement("span");
    sit.className = "curso-situacao";
    var link = document.createElement("a");
    link.className = "curso-abrir-retorno";
    link.target = "_blank";
    link.rel = "noopener";
    link.textContent = " (abrir o retorno)";
    link.style.display = "none";
    span.append(quando, sit, link);
    desenhar(span);
    setTimeout(consultar, 0);
    return span;
  };
  window.cursoBotaoRetorno = function (b, d) {
    b.classList.add("curso-buscar-retorno");
    b.dataset.atividade = d.assignment_id;
    setTimeout(function () { b.dataset.rotulo = b.innerText; ajustarBotao(b); }, 0);
  };
  window.cursoSituacaoAgora = function () { return estado; };
  setInterval(consultar, 1000);
})();
